import MediaDRMTDF

/// What `tdf inspect` reports. Public facts only: the wrapped keys, policy bindings, segment
/// hashes and root signature are represented by their algorithms, never their values.
struct ManifestSummary: Encodable {
    struct KeyAccess: Encodable {
        let type: String
        let url: String
        let `protocol`: String
        let kid: String?
        let sid: String?
        let schemaVersion: String?
        let policyBindingAlg: String
        let hasEphemeralPublicKey: Bool
    }

    struct Component: Encodable {
        let id: String
        let kind: String
    }

    struct Policy: Encodable {
        let uuid: String
        let dataAttributes: [String]
        let dissem: [String]
        let components: [Component]?
        let hasClassification: Bool
        let hasMedia: Bool
    }

    struct Integrity: Encodable {
        let rootSignatureAlg: String
        let segmentHashAlg: String
        let segmentSizeDefault: Int64
        let encryptedSegmentSizeDefault: Int64
    }

    /// Runs of equal-sized segments, so a large file's summary stays short.
    struct SizeRun: Encodable {
        let segmentSize: Int64
        let encryptedSegmentSize: Int64
        let count: Int
    }

    struct Segments: Encodable {
        let count: Int
        let plaintextBytes: Int64
        let encryptedBytes: Int64
        let sizes: [SizeRun]
    }

    let file: String
    let schemaVersion: String?
    let type: String
    let algorithm: String
    let isStreamable: Bool
    let mimeType: String?
    let payloadURL: String
    let payloadProtocol: String
    let keyAccess: [KeyAccess]
    let policy: Policy
    let integrity: Integrity
    let segments: Segments

    init(file: String, manifest: TDFManifest, policy: TDFPolicy) {
        let info = manifest.encryptionInformation
        self.file = file
        schemaVersion = manifest.schemaVersion
        type = info.type
        algorithm = info.method.algorithm
        isStreamable = info.method.isStreamable
        mimeType = manifest.payload.mimeType
        payloadURL = manifest.payload.url
        payloadProtocol = manifest.payload.protocol
        keyAccess = info.keyAccess.map {
            KeyAccess(type: $0.type.rawValue, url: $0.url, protocol: $0.protocol, kid: $0.kid, sid: $0.sid,
                      schemaVersion: $0.schemaVersion, policyBindingAlg: $0.policyBinding.alg,
                      hasEphemeralPublicKey: $0.ephemeralPublicKey != nil)
        }
        self.policy = Policy(
            uuid: policy.uuid,
            dataAttributes: policy.body.dataAttributes.map(\.attribute),
            dissem: policy.body.dissem,
            components: policy.components?.entries.map { Component(id: $0.id, kind: $0.kind) },
            hasClassification: policy.classification != nil,
            hasMedia: policy.media != nil)
        let integrityInfo = info.integrityInformation
        integrity = Integrity(rootSignatureAlg: integrityInfo.rootSignature.alg,
                              segmentHashAlg: integrityInfo.segmentHashAlg,
                              segmentSizeDefault: integrityInfo.segmentSizeDefault,
                              encryptedSegmentSizeDefault: integrityInfo.encryptedSegmentSizeDefault)
        var runs: [SizeRun] = []
        for segment in integrityInfo.segments {
            if let last = runs.last, last.segmentSize == segment.segmentSize,
               last.encryptedSegmentSize == segment.encryptedSegmentSize {
                runs[runs.count - 1] = SizeRun(segmentSize: last.segmentSize,
                                               encryptedSegmentSize: last.encryptedSegmentSize, count: last.count + 1)
            } else {
                runs.append(SizeRun(segmentSize: segment.segmentSize,
                                    encryptedSegmentSize: segment.encryptedSegmentSize, count: 1))
            }
        }
        segments = Segments(count: integrityInfo.segments.count,
                            plaintextBytes: integrityInfo.segments.reduce(0) { $0 + $1.segmentSize },
                            encryptedBytes: integrityInfo.segments.reduce(0) { $0 + $1.encryptedSegmentSize },
                            sizes: runs)
    }

    /// The human-readable form.
    var text: String {
        var lines: [String] = []
        lines.append("file:            \(file)")
        lines.append("schema version:  \(schemaVersion ?? "(none: legacy TDF)")")
        lines.append("payload:         \(payloadURL) (\(payloadProtocol)), \(mimeType ?? "no MIME type"), \(type), \(algorithm)")
        lines.append("key access:      \(keyAccess.count)")
        for (index, access) in keyAccess.enumerated() {
            var line = "  [\(index)] \(access.type) \(access.url)"
            if let kid = access.kid { line += " kid=\(kid)" }
            if let sid = access.sid { line += " sid=\(sid)" }
            line += " binding=\(access.policyBindingAlg)"
            lines.append(line)
        }
        lines.append("policy uuid:     \(policy.uuid)")
        for attribute in policy.dataAttributes { lines.append("  attribute:     \(attribute)") }
        for entity in policy.dissem { lines.append("  dissem:        \(entity)") }
        for component in policy.components ?? [] { lines.append("  component:     \(component.id) (\(component.kind))") }
        if policy.hasClassification { lines.append("  arkavo:classification present") }
        if policy.hasMedia { lines.append("  arkavo:media present") }
        lines.append("integrity:       segments \(integrity.segmentHashAlg), root signature \(integrity.rootSignatureAlg)")
        lines.append("segments:        \(segments.count), \(segments.plaintextBytes) plaintext bytes, \(segments.encryptedBytes) encrypted bytes")
        for run in segments.sizes {
            lines.append("  \(run.count) x \(run.segmentSize) bytes (\(run.encryptedSegmentSize) encrypted)")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
