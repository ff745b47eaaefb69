import Foundation
import Testing
@testable import MediaDRMEncoding

@Suite struct HexTests {
    @Test(arguments: rfc4648Vectors.map { ($0.plain, $0.base16) })
    func rfc4648Vector(plain: String, base16: String) throws {
        #expect(Hex.encode(Data(plain.utf8)) == base16.lowercased())
        #expect(try Hex.decode(base16) == Data(plain.utf8))
        #expect(try Hex.decode(base16.lowercased()) == Data(plain.utf8))
    }

    @Test func everyByteValueRoundTrips() throws {
        let bytes = Data(0...255)
        let text = Hex.encode(bytes)
        #expect(text.count == 512)
        #expect(text.hasPrefix("000102"))
        #expect(text.hasSuffix("fdfeff"))
        #expect(try Hex.decode(text) == bytes)
        #expect(try Hex.decode(text.uppercased()) == bytes)
        #expect(try Hex.decode("DeadBEEF") == Data([0xDE, 0xAD, 0xBE, 0xEF]))
    }

    @Test(arguments: [
        ("abc", EncodingError.Code.invalidLength),
        ("0", .invalidLength),
        ("0g", .invalidCharacter),
        ("g0", .invalidCharacter),
        ("0x00", .invalidCharacter),
        ("00 ", .invalidCharacter),
        ("00 1", .invalidCharacter),
        ("00\n0", .invalidCharacter),
        ("é0", .invalidCharacter),       // three UTF-8 bytes, the first two not digits
        ("é", .invalidCharacter),
        ("-1", .invalidCharacter),
    ])
    func refuses(text: String, code: EncodingError.Code) {
        #expect(throws: EncodingError(code, "")) { try Hex.decode(text) }
    }
}
