import Foundation
import Testing
@testable import MediaDRMJSON

@Suite struct JSONNumberTests {
    @Test func integerViews() {
        #expect(num("9223372036854775807").int64 == Int64.max)
        #expect(num("-9223372036854775808").int64 == Int64.min)
        #expect(num("9223372036854775808").int64 == nil)
        #expect(num("18446744073709551615").uint64 == UInt64.max)
        #expect(num("-1").uint64 == nil)
        #expect(num("-0").int64 == 0)
        #expect(num("1.0").int64 == nil)
        #expect(num("1e2").int64 == nil)
        #expect(num("1.0").isInteger == false)
        #expect(num("12").isInteger)
    }

    @Test func doubleView() {
        #expect(num("1.5").double == 1.5)
        #expect(num("-2.5E-3").double == -0.0025)
        #expect(num("1e308").double == 1e308)
        #expect(num("1e400").double == nil)
        #expect(num("-1e400").double == nil)
        #expect(num("1e-400").double == 0)
    }

    @Test(arguments: ["0", "-0", "1", "-1", "10", "1.5", "0.0", "1e5", "1E5", "1e+5", "1e-5", "-0.5e-05", "123456789012345678901234567890"])
    func validText(text: String) throws {
        let number = try #require(JSONNumber(text: text))
        #expect(number.text == text)
    }

    @Test(arguments: ["", "-", "+1", "01", "-01", "1.", ".5", "1e", "1e+", "NaN", "Infinity", "1 ", " 1", "0x1", "1_000", "١"])
    func invalidText(text: String) {
        #expect(JSONNumber(text: text) == nil)
    }

    @Test func fromSwiftValues() {
        #expect(JSONNumber(42).text == "42")
        #expect(JSONNumber(Int64.min).text == "-9223372036854775808")
        #expect(JSONNumber(UInt64.max).text == "18446744073709551615")
        #expect(JSONNumber(3.0).text == "3")
        #expect(JSONNumber(-0.5).text == "-0.5")
        #expect(JSONNumber(1e300).text == "1e+300")
        #expect(JSONNumber(exactly: .nan) == nil)
        #expect(JSONNumber(exactly: .infinity) == nil)
        for value in [0.1, 1.0 / 3.0, 6.02214076e23, -1.7976931348623157e308, Double.leastNonzeroMagnitude, 123456789.125] {
            let number = JSONNumber(value)
            #expect(JSONNumber(text: number.text) != nil, "\(number.text) is not JSON")
            #expect(number.double == value)
        }
    }
}
