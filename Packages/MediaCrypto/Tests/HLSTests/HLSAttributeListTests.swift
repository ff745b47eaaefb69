import Foundation
import Testing
@testable import MediaDRMHLS

@Suite struct HLSAttributeListTests {
    private func parse(_ text: String, max: Int = 64) throws(HLSError) -> HLSAttributeList {
        try HLSAttributeList(parsing: text, maxAttributes: max, line: 3)
    }

    @Test func quotedStringsKeepCommasAndMayBeEmpty() throws {
        let list = try parse(#"CODECS="avc1.4d401f,mp4a.40.2",NAME="",BANDWIDTH=1280000,URI="a,b=c""#)
        #expect(list.names == ["CODECS", "NAME", "BANDWIDTH", "URI"])
        #expect(try list.quotedString("CODECS") == "avc1.4d401f,mp4a.40.2")
        #expect(try list.quotedString("NAME") == "")
        #expect(try list.decimalInteger("BANDWIDTH") == 1_280_000)
        #expect(try list.quotedString("URI") == "a,b=c")
        #expect(list.text == #"CODECS="avc1.4d401f,mp4a.40.2",NAME="",BANDWIDTH=1280000,URI="a,b=c""#)
    }

    @Test func typedValues() throws {
        let list = try parse("IV=0x0123456789abcdefABCDEF0123456789,FRAME-RATE=29.970,RESOLUTION=1920x1080,DEFAULT=YES,AUTOSELECT=NO,TYPE=AUDIO,BIG=18446744073709551615")
        #expect(try list.hexadecimalSequence("IV") == Data([0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF, 0xAB, 0xCD, 0xEF, 0x01, 0x23, 0x45, 0x67, 0x89]))
        #expect(try list.decimalFloat("FRAME-RATE") == 29.97)
        #expect(try list.resolution("RESOLUTION") == HLSResolution(width: 1920, height: 1080))
        #expect(try list.yesNo("DEFAULT") == true)
        #expect(try list.yesNo("AUTOSELECT") == false)
        #expect(try list.enumeratedString("TYPE") == "AUDIO")
        #expect(try list.quotedString("ABSENT") == nil)
        // 2^64-1 is a valid decimal-integer but exceeds Int: refused, never wrapped.
        #expect(HLSExpect.error { () throws(HLSError) in try list.decimalInteger("BIG") }?.code == .invalidValue)
        // A bare value read as a quoted-string (and the reverse) is a type error.
        #expect(HLSExpect.error { () throws(HLSError) in try list.quotedString("TYPE") }?.code == .invalidValue)
        #expect(HLSExpect.error { () throws(HLSError) in try list.resolution("FRAME-RATE") }?.code == .invalidValue)
    }

    @Test(arguments: [
        (#"URI="abc"#, HLSError.Code.unterminatedQuotedString),
        (#"A="x",URI="abc,B=1"#, .unterminatedQuotedString),
        ("A=1,A=2", .duplicateAttribute),
        (#"URI="a",METHOD=NONE,URI="b""#, .duplicateAttribute),
        ("", .malformedAttributeList),
        ("A=", .malformedAttributeList),
        ("A=1,", .malformedAttributeList),
        ("=1", .malformedAttributeList),
        ("A", .malformedAttributeList),
        ("a=1", .malformedAttributeList),
        ("A=1, B=2", .malformedAttributeList),
        (#"A="x"y"#, .malformedAttributeList),
        (#"A=x"y""#, .malformedAttributeList),
        ("A=1,,B=2", .malformedAttributeList),
        ("A=one two", .malformedAttributeList),
    ])
    func malformedLists(text: String, code: HLSError.Code) {
        let error = HLSExpect.error { () throws(HLSError) in try parse(text) }
        #expect(error?.code == code)
        #expect(error?.line == 3)
    }

    @Test(arguments: ["0x", "0x1", "0xZZ", "12AB", "0x12G4", "x1234", "0x12-4"])
    func badHex(text: String) throws {
        let list = try parse("IV=\(text)")
        #expect(HLSExpect.error { () throws(HLSError) in try list.hexadecimalSequence("IV") }?.code == .invalidHex)
    }

    @Test(arguments: ["1e5", "-1.0", "+1", ".5", "5.", "1.2.3", "inf", "nan", "0x1p3", "1,5"])
    func badFloat(text: String) throws {
        // A comma splits the list, so "1,5" yields FRAME-RATE=1 and a malformed remainder.
        guard let list = try? parse("FRAME-RATE=\(text)") else { return #expect(text == "1,5") }
        #expect(HLSExpect.error { () throws(HLSError) in try list.decimalFloat("FRAME-RATE") }?.code == .invalidValue)
    }

    @Test(arguments: ["1920", "1920x", "x1080", "1920X1080", "1920x1080x1", "-1x2"])
    func badResolution(text: String) throws {
        let list = try parse("RESOLUTION=\(text)")
        #expect(HLSExpect.error { () throws(HLSError) in try list.resolution("RESOLUTION") }?.code == .invalidValue)
    }

    @Test func attributeCountLimitIsCheckedBeforeStoring() throws {
        let four = "A=1,B=2,C=3,D=4"
        #expect(try parse(four, max: 4).attributes.count == 4)
        let error = HLSExpect.error { () throws(HLSError) in try parse(four, max: 3) }
        #expect(error?.code == .tooManyAttributes)
        // A hostile line of 100,000 attributes stops at the limit.
        let hostile = (0..<100_000).map { "A\($0)=1" }.joined(separator: ",")
        #expect(HLSExpect.error { () throws(HLSError) in try parse(hostile) }?.code == .tooManyAttributes)
    }

    @Test func yesNoRefusesOtherValues() throws {
        let list = try parse("DEFAULT=yes")
        #expect(HLSExpect.error { () throws(HLSError) in try list.yesNo("DEFAULT") }?.code == .invalidValue)
    }
}
