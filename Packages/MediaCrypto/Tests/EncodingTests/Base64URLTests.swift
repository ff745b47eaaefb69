import Foundation
import Testing
@testable import MediaDRMEncoding

@Suite struct Base64URLTests {
    private static func urlForm(_ standard: String) -> String {
        String(standard.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .prefix { $0 != "=" })
    }

    @Test(arguments: rfc4648Vectors.map { ($0.plain, $0.base64) })
    func rfc4648Vector(plain: String, standard: String) throws {
        let unpadded = Self.urlForm(standard)
        #expect(Base64URL.encode(Data(plain.utf8)) == unpadded)
        #expect(try Base64URL.decode(unpadded) == Data(plain.utf8))
        // Exactly-right padding is accepted too (RFC 4648 §5 allows it); JOSE callers refuse it.
        #expect(try Base64URL.decode(standard) == Data(plain.utf8))
        #expect(Base64URL.isUnpadded(unpadded))
        #expect(Base64URL.isUnpadded(standard) == !standard.contains("="))
    }

    @Test func urlAlphabet() throws {
        let bytes = Data([0xFB, 0xFF, 0xBF, 0x00, 0x10, 0x83])
        #expect(Base64URL.encode(bytes) == "-_-_ABCD")
        #expect(try Base64URL.decode("-_-_ABCD") == bytes)
    }

    @Test func rfc7515AppendixCExample() throws {
        // RFC 7515 Appendix C: the octets 3, 236, 255, 224, 193 encode to "A-z_4ME".
        let bytes = Data([3, 236, 255, 224, 193])
        #expect(Base64URL.encode(bytes) == "A-z_4ME")
        #expect(try Base64URL.decode("A-z_4ME") == bytes)
    }

    @Test func matchesFoundationOnEveryLength() throws {
        for length in 0..<130 {
            let bytes = Data((0..<length).map { UInt8(truncatingIfNeeded: $0 &* 151 &+ 7) })
            let expected = Self.urlForm(bytes.base64EncodedString())
            #expect(Base64URL.encode(bytes) == expected)
            #expect(try Base64URL.decode(expected) == bytes)
        }
    }

    @Test(arguments: [
        ("+/+/ABCD", EncodingError.Code.invalidCharacter),   // standard alphabet refused
        ("ab/c", .invalidCharacter),
        ("Zm9v YmFy", .invalidCharacter),
        ("Zm9v\n", .invalidCharacter),
        ("Q", .invalidLength),
        ("QUJDR", .invalidLength),
        ("QR", .nonCanonical),
        ("QUJ", .nonCanonical),
        ("QQ=", .invalidPadding),
        ("QUJD=", .invalidPadding),
        ("QQ===", .invalidPadding),
        ("Q=Q", .invalidPadding),
    ])
    func refuses(text: String, code: EncodingError.Code) {
        #expect(throws: EncodingError(code, "")) { try Base64URL.decode(text) }
    }
}
