import Foundation
import Testing
@testable import MediaDRMCrypto

@Suite struct SHA256Tests {
    private typealias T = SymmetricTestSupport

    /// FIPS 180-4 examples (NIST CSRC "SHA256.pdf" / "SHA2_Additional") .
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        ("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
         "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"),
    ])
    func fipsVectors(message: String, digest: String) {
        let result = SHA256Digest.hash(data: Data(message.utf8))
        #expect(result.count == SHA256Digest.byteCount)
        #expect(T.hex(result) == digest)
    }

    @Test func millionAs() {
        let message = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(T.hex(SHA256Digest.hash(data: message)) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    /// Non-contiguous inputs (a multi-region DispatchData) and slices hash the same bytes.
    @Test func inputShapesAgree() {
        let bytes = T.pattern(count: 1000)
        let expected = SHA256Digest.hash(data: bytes)
        var dispatch = DispatchData.empty
        bytes[0..<300].withUnsafeBytes { dispatch.append($0) }
        bytes[300...].withUnsafeBytes { dispatch.append($0) }
        #expect(dispatch.regions.count == 2)
        #expect(SHA256Digest.hash(data: dispatch) == expected)
        #expect(SHA256Digest.hash(data: Data(bytes)) == expected)
        let padded = [0xff] + bytes + [0xee]
        #expect(SHA256Digest.hash(data: padded[1..<1001]) == expected)
        #expect(SHA256Digest.hash(data: Data(padded)[1..<1001]) == expected)
    }

    @Test(arguments: [0, 1, 55, 56, 63, 64, 65, 4097])
    func matchesOpenSSLCLI(length: Int) throws {
        let message = T.pattern(count: length, seed: 3)
        let cli = try T.openssl(["dgst", "-sha256", "-binary"], input: message)
        #expect(Array(SHA256Digest.hash(data: message)) == cli)
    }
}
