import Foundation
import Testing
@testable import MediaDRMEncoding

/// RFC 4648 §10 test vectors.
let rfc4648Vectors: [(plain: String, base64: String, base16: String)] = [
    ("", "", ""),
    ("f", "Zg==", "66"),
    ("fo", "Zm8=", "666F"),
    ("foo", "Zm9v", "666F6F"),
    ("foob", "Zm9vYg==", "666F6F62"),
    ("fooba", "Zm9vYmE=", "666F6F6261"),
    ("foobar", "Zm9vYmFy", "666F6F626172"),
]

@Suite struct Base64Tests {
    @Test(arguments: rfc4648Vectors.map { ($0.plain, $0.base64) })
    func rfc4648Vector(plain: String, encoded: String) throws {
        #expect(Base64.encode(Data(plain.utf8)) == encoded)
        #expect(try Base64.decode(encoded) == Data(plain.utf8))
    }

    @Test func allByteValuesUseBothHighSymbols() throws {
        let bytes = Data([0xFB, 0xFF, 0xBF, 0x00, 0x10, 0x83])
        let text = Base64.encode(bytes)
        #expect(text == "+/+/ABCD")
        #expect(try Base64.decode(text) == bytes)
    }

    @Test func matchesFoundationOnEveryLength() throws {
        var generator = SystemRandomNumberGenerator()
        for length in 0..<200 {
            let bytes = Data((0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) })
            let ours = Base64.encode(bytes)
            #expect(ours == bytes.base64EncodedString())
            #expect(try Base64.decode(ours) == bytes)
            #expect(try Base64.decode(Substring(ours)) == bytes)
        }
    }

    @Test func encodesNonContiguousInput() {
        let pieces = DispatchData.empty
        var data = pieces
        "foo".utf8.withContiguousStorageIfAvailable { data.append(UnsafeRawBufferPointer($0)) }
        "bar".utf8.withContiguousStorageIfAvailable { data.append(UnsafeRawBufferPointer($0)) }
        #expect(Base64.encode(data) == "Zm9vYmFy")
    }

    @Test(arguments: [
        ("QQ=", EncodingError.Code.invalidPadding),        // one '=' where two are needed
        ("QUI==", .invalidPadding),                         // two '=' where one is needed
        ("QUJD=", .invalidPadding),                         // padding on a full quantum
        ("QQ", .invalidPadding),                            // missing padding
        ("QUI", .invalidPadding),
        ("Q===", .invalidLength),
        ("====", .invalidPadding),
        ("Q", .invalidLength),
        ("QUJDR", .invalidLength),
        ("QR==", .nonCanonical),                            // non-zero pad bits
        ("QUJ=", .nonCanonical),
        ("Zm9=", .nonCanonical),
        ("Zm9v\n", .invalidCharacter),                      // whitespace
        (" Zm9v", .invalidCharacter),
        ("Zm 9v", .invalidCharacter),
        ("Zm9v\r\nYmFy", .invalidCharacter),
        ("-_-_", .invalidCharacter),                        // URL alphabet in standard Base64
        ("Zm9v-w==", .invalidCharacter),
        ("Zg==Zg==", .invalidPadding),                      // padding in the middle
        ("Zm=v", .invalidPadding),
        ("Zm9é", .invalidCharacter),
        ("Zm9\u{0}", .invalidCharacter),
    ])
    func refusesNonCanonical(text: String, code: EncodingError.Code) {
        #expect(throws: EncodingError(code, "")) { try Base64.decode(text) }
    }

    @Test func errorsNeverEchoTheInput() {
        let secret = "c2VjcmV0LXRva2Vu!"
        do {
            _ = try Base64.decode(secret)
            Issue.record("decoded an invalid text")
        } catch {
            #expect(!error.reason.contains(secret))
            #expect(!error.description.contains("c2VjcmV0"))
        }
    }
}
