import Foundation
import MediaDRMJSON

/// The OpenTDF manifest (`0.manifest.json`, schema 4.3.0) of a Standard TDF.
///
/// Reading is strict where it matters (duplicate keys refused at any depth by the JSON parser,
/// required members present with their types, sizes non-negative integers) and tolerant where
/// general TDFs differ: unknown members are ignored, `null` optionals read as absent, a segment
/// without sizes takes the defaults, `schemaVersion` may also be spelled `tdf_spec_version`.
/// Writing uses the JSON writer with members in the order the OpenTDF Go SDK writes them.
public struct TDFManifest: Sendable, Equatable {
    public static let schemaVersion430 = "4.3.0"

    public var encryptionInformation: EncryptionInformation
    public var payload: Payload
    /// nil for legacy manifests written before the field existed.
    public var schemaVersion: String?
    /// Assertions are carried through untouched; this module does not verify them.
    public var assertions: JSONValue?

    public init(encryptionInformation: EncryptionInformation, payload: Payload,
                schemaVersion: String? = TDFManifest.schemaVersion430, assertions: JSONValue? = nil) {
        self.encryptionInformation = encryptionInformation
        self.payload = payload
        self.schemaVersion = schemaVersion
        self.assertions = assertions
    }

    public struct EncryptionInformation: Sendable, Equatable {
        /// "split": the payload key is the XOR of one key per distinct `sid`.
        public var type: String
        public var keyAccess: [KeyAccessObject]
        public var method: Method
        public var integrityInformation: IntegrityInformation
        /// Standard base64 of the policy JSON, exactly as stored; bindings cover this text.
        public var policy: String

        public init(type: String = "split", keyAccess: [KeyAccessObject], method: Method,
                    integrityInformation: IntegrityInformation, policy: String) {
            self.type = type
            self.keyAccess = keyAccess
            self.method = method
            self.integrityInformation = integrityInformation
            self.policy = policy
        }
    }

    public struct Method: Sendable, Equatable {
        public var algorithm: String
        public var isStreamable: Bool
        /// Informational for AES-256-GCM segments (each segment carries its own nonce); may be "".
        public var iv: String

        public init(algorithm: String = "AES-256-GCM", isStreamable: Bool = true, iv: String = "") {
            self.algorithm = algorithm
            self.isStreamable = isStreamable
            self.iv = iv
        }
    }

    public struct IntegrityInformation: Sendable, Equatable {
        public var rootSignature: RootSignature
        public var segmentHashAlg: String
        public var segmentSizeDefault: Int64
        public var encryptedSegmentSizeDefault: Int64
        public var segments: [Segment]

        public init(rootSignature: RootSignature, segmentHashAlg: String = "GMAC", segmentSizeDefault: Int64,
                    encryptedSegmentSizeDefault: Int64, segments: [Segment]) {
            self.rootSignature = rootSignature
            self.segmentHashAlg = segmentHashAlg
            self.segmentSizeDefault = segmentSizeDefault
            self.encryptedSegmentSizeDefault = encryptedSegmentSizeDefault
            self.segments = segments
        }
    }

    public struct RootSignature: Sendable, Equatable {
        public var alg: String
        public var sig: String
        public init(alg: String = "HS256", sig: String) {
            self.alg = alg
            self.sig = sig
        }
    }

    public struct Segment: Sendable, Equatable {
        public var hash: String
        public var segmentSize: Int64
        public var encryptedSegmentSize: Int64
        public init(hash: String, segmentSize: Int64, encryptedSegmentSize: Int64) {
            self.hash = hash
            self.segmentSize = segmentSize
            self.encryptedSegmentSize = encryptedSegmentSize
        }
    }

    public struct Payload: Sendable, Equatable {
        public var type: String
        public var url: String
        public var `protocol`: String
        public var mimeType: String?
        public var isEncrypted: Bool

        public init(type: String = "reference", url: String = TDFArchive.payloadEntryName, protocol: String = "zip",
                    mimeType: String? = "application/octet-stream", isEncrypted: Bool = true) {
            self.type = type
            self.url = url
            self.protocol = `protocol`
            self.mimeType = mimeType
            self.isEncrypted = isEncrypted
        }
    }
}

// MARK: - Reading

extension TDFManifest {
    /// Parses manifest bytes with the strict JSON parser.
    public init(parsing bytes: some DataProtocol, limits: TDFLimits = .default) throws(TDFError) {
        guard bytes.count <= limits.maxManifestBytes else {
            throw TDFError(.limitExceeded, "manifest is larger than maxManifestBytes")
        }
        var jsonLimits = JSONLimits.default
        jsonLimits.maxBytes = limits.maxManifestBytes
        jsonLimits.maxMembers = max(jsonLimits.maxMembers, limits.maxSegments)
        let value = try parseJSON(Array(bytes), limits: jsonLimits, code: .malformedManifest, name: "manifest")
        try self.init(json: value, limits: limits)
    }

    /// Reads a manifest from an already parsed JSON value.
    public init(json: JSONValue, limits: TDFLimits = .default) throws(TDFError) {
        let root = try JSONFields.root(json, name: "manifest", code: .malformedManifest)
        let info = try root.object("encryptionInformation")

        let keyAccessValues = try info.array("keyAccess")
        guard !keyAccessValues.isEmpty else {
            throw TDFError(.malformedManifest, "manifest.encryptionInformation.keyAccess is empty")
        }
        guard keyAccessValues.count <= limits.maxKeyAccessObjects else {
            throw TDFError(.limitExceeded, "manifest has more key access objects than maxKeyAccessObjects")
        }
        var keyAccess: [KeyAccessObject] = []
        keyAccess.reserveCapacity(keyAccessValues.count)
        for (index, item) in keyAccessValues.enumerated() {
            keyAccess.append(try KeyAccessObject(fields: info.element(item, of: "keyAccess", at: index)))
        }

        let methodFields = try info.object("method")
        let method = Method(algorithm: try methodFields.string("algorithm"),
                            isStreamable: try methodFields.bool("isStreamable"),
                            iv: try methodFields.optionalString("iv") ?? "")

        let integrity = try info.object("integrityInformation")
        let rootFields = try integrity.object("rootSignature")
        let rootSignature = RootSignature(alg: try rootFields.string("alg"), sig: try rootFields.string("sig"))
        let segmentSizeDefault = try integrity.size("segmentSizeDefault")
        let encryptedDefault = try integrity.optionalSize("encryptedSegmentSizeDefault")
            ?? (segmentSizeDefault + Int64(TDFArchive.segmentOverhead))
        // A writer with no segments (an empty payload) may omit the array.
        let segmentValues = try integrity.optionalArray("segments")
        guard segmentValues.count <= limits.maxSegments else {
            throw TDFError(.limitExceeded, "manifest has more segments than maxSegments")
        }
        var segments: [Segment] = []
        segments.reserveCapacity(segmentValues.count)
        for (index, item) in segmentValues.enumerated() {
            let fields = try integrity.element(item, of: "segments", at: index)
            segments.append(Segment(hash: try fields.string("hash"),
                                    segmentSize: try fields.optionalSize("segmentSize") ?? segmentSizeDefault,
                                    encryptedSegmentSize: try fields.optionalSize("encryptedSegmentSize") ?? encryptedDefault))
        }
        let integrityInformation = IntegrityInformation(
            rootSignature: rootSignature, segmentHashAlg: try integrity.string("segmentHashAlg"),
            segmentSizeDefault: segmentSizeDefault, encryptedSegmentSizeDefault: encryptedDefault, segments: segments)

        self.encryptionInformation = EncryptionInformation(
            type: try info.string("type"), keyAccess: keyAccess, method: method,
            integrityInformation: integrityInformation, policy: try info.string("policy"))

        let payloadFields = try root.object("payload")
        self.payload = Payload(type: try payloadFields.string("type"), url: try payloadFields.string("url"),
                               protocol: try payloadFields.string("protocol"),
                               mimeType: try payloadFields.optionalString("mimeType"),
                               isEncrypted: try payloadFields.bool("isEncrypted"))
        let tdfSpecVersion = try root.optionalString("tdf_spec_version")
        self.schemaVersion = try root.optionalString("schemaVersion") ?? tdfSpecVersion
        self.assertions = root.value("assertions")
    }
}

// MARK: - Writing

extension TDFManifest {
    public var jsonValue: JSONValue {
        var method = JSONObjectBuilder()
        method.add("algorithm", encryptionInformation.method.algorithm)
        method.add("iv", encryptionInformation.method.iv)
        method.add("isStreamable", encryptionInformation.method.isStreamable)

        let integrityInfo = encryptionInformation.integrityInformation
        var root = JSONObjectBuilder()
        root.add("alg", integrityInfo.rootSignature.alg)
        root.add("sig", integrityInfo.rootSignature.sig)
        var integrity = JSONObjectBuilder()
        integrity.add("rootSignature", root.value)
        integrity.add("segmentHashAlg", integrityInfo.segmentHashAlg)
        integrity.add("segmentSizeDefault", integrityInfo.segmentSizeDefault)
        integrity.add("encryptedSegmentSizeDefault", integrityInfo.encryptedSegmentSizeDefault)
        integrity.add("segments", .array(integrityInfo.segments.map { segment in
            var item = JSONObjectBuilder()
            item.add("hash", segment.hash)
            item.add("segmentSize", segment.segmentSize)
            item.add("encryptedSegmentSize", segment.encryptedSegmentSize)
            return item.value
        }))

        var info = JSONObjectBuilder()
        info.add("type", encryptionInformation.type)
        info.add("policy", encryptionInformation.policy)
        info.add("keyAccess", .array(encryptionInformation.keyAccess.map(\.jsonValue)))
        info.add("method", method.value)
        info.add("integrityInformation", integrity.value)

        var payloadObject = JSONObjectBuilder()
        payloadObject.add("type", payload.type)
        payloadObject.add("url", payload.url)
        payloadObject.add("protocol", payload.protocol)
        payloadObject.addIfPresent("mimeType", payload.mimeType)
        payloadObject.add("isEncrypted", payload.isEncrypted)

        var manifest = JSONObjectBuilder()
        manifest.add("encryptionInformation", info.value)
        manifest.add("payload", payloadObject.value)
        manifest.addIfPresent("schemaVersion", schemaVersion)
        if let assertions { manifest.add("assertions", assertions) }
        return manifest.value
    }

    /// Compact UTF-8 JSON, members in writing order (not sorted).
    public func jsonData() -> Data {
        JSONWriter.write(jsonValue, options: [])
    }
}
