import Foundation
import MediaDRMJSON
import MediaDRMTDF
import MediaDRMZIP

/// Standard TDF: the manifest on its own (with its writer round trip), and whole archives
/// opened with the fixture KAS key so that unwrapping, the policy binding, the root signature
/// and the segment decryption are all reached.
enum TDFTargets {
    static let manifest = FuzzTarget("tdf-manifest", "TDFManifest(parsing:) and its writer round trip") { input throws(FuzzViolation) in
        guard let parsed = try? TDFManifest(parsing: input) else { return .refused }
        guard let reread = try? TDFManifest(parsing: parsed.jsonData()) else {
            throw FuzzViolation("tdf-manifest", "the written manifest does not parse")
        }
        guard reread == parsed else { throw FuzzViolation("tdf-manifest", "the round trip changed the manifest") }
        return .accepted
    }

    static let archive = FuzzTarget("tdf-archive", "TDFArchiveReader with the fixture KAS key: unwrap, binding, root signature, payload",
                                    mutation: .archiveEntries(.standard)) { input throws(FuzzViolation) in
        guard let reader = try? TDFArchiveReader(source: ZIPMemorySource(input)) else { return .refused }
        // The key the archive was wrapped to: the fixture ring's RSA or P-256 key.
        guard let key = FuzzFixtures.kasPrivateKeys.lazy.compactMap({ try? reader.payloadKey(unwrapWith: $0) }).first
        else { return .refused }
        guard (try? reader.verifyRootSignature(payloadKey: key)) != nil else { return .refused }
        return (try? reader.decrypt(payloadKey: key)) != nil ? .accepted : .refused
    }
}
