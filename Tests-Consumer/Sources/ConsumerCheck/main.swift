// Imports the consumer's own `Crypto`, `JSON`, `ZIP`, `HLS` and `MP4` beside every MediaCrypto
// module and uses both sides, so the compiler resolves each name in one module; CryptoNames.swift
// does the same for swift-crypto's type names.
import Crypto
import Foundation
import HLS
import JSON
import MP4
import MediaDRMCENC
import MediaDRMCrypto
import MediaDRMEncoding
import MediaDRMFPSv2
import MediaDRMHLS
import MediaDRMJOSE
import MediaDRMJSON
import MediaDRMMedia
import MediaDRMMP4
import MediaDRMTDF
import MediaDRMToolSupport
import MediaDRMZIP
import ZIP

let ownModules = [CryptoMarker.moduleName, JSONMarker.moduleName, ZIPMarker.moduleName,
                  HLSMarker.moduleName, MP4Marker.moduleName]
let digest = Hex.encode(SHA256Digest.hash(data: Data("abc".utf8)))
let expected = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
guard digest == expected else {
    print("consumer: MediaDRMCrypto's SHA-256 of \"abc\" was \(digest), expected \(expected)")
    exit(1)
}
do {
    if let failure = try checkCryptoNames() {
        print("consumer: \(failure)")
        exit(1)
    }
} catch {
    print("consumer: MediaDRMCrypto failed: \(error)")
    exit(1)
}
print("consumer: built with its own modules \(ownModules.joined(separator: ", ")) beside MediaCrypto; SHA-256 checked; "
      + "Crypto's SHA256, SymmetricKey, HMAC, HKDF, AES and P256 used unqualified beside MediaDRMCrypto's names")
