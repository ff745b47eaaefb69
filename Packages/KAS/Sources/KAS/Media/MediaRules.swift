import MediaDRMJSON

/// The bound `arkavo:media` policy member: playback rules the KAS enforces. It sits inside the
/// policy, so every policy binding covers it; the KAS reads it only from a policy whose bindings
/// verified. The packager writes it (Packages/Packager `MediaRuleEvaluator`) in this shape, with only the
/// rules that were given:
///
/// ```json
/// "arkavo:media": {"v": 1,
///   "rental": {"purchaseWindowSeconds": 2592000, "playbackWindowSeconds": 172800},
///   "maxConcurrentStreams": 2, "allowedRegions": ["US", "CA"], "blockedRegions": ["KP"],
///   "hdcp": "type1", "minSecurityLevel": "main", "allowVirtualMachines": false}
/// ```
///
/// The schema is closed: an unknown member, a `v` other than 1 or a value of the wrong type makes
/// the whole manifest refused. A rule this server does not understand must never be skipped.
public struct MediaRules: Sendable, Equatable {
    public static let policyKey = "arkavo:media"

    /// Seconds after the purchase (the token's `rentals[<policy uuid>]`) within which the first
    /// key must be delivered.
    public var rentalPurchaseWindowSeconds: Int64?
    /// Seconds after the first key delivered to this viewer for this asset during which keys are
    /// delivered.
    public var rentalPlaybackWindowSeconds: Int64?
    /// Live playbacks (`playbackId`) of this asset one viewer may hold.
    public var maxConcurrentStreams: Int?
    /// ISO 3166-1 alpha-2 codes, upper case.
    public var allowedRegions: [String]?
    public var blockedRegions: [String]?
    public var hdcp: HDCPLevel?
    public var minSecurityLevel: SecurityLevel?
    /// false: keys are refused to virtual machines, and to clients that cannot show they are not.
    public var allowVirtualMachines: Bool?

    public init(rentalPurchaseWindowSeconds: Int64? = nil, rentalPlaybackWindowSeconds: Int64? = nil,
                maxConcurrentStreams: Int? = nil, allowedRegions: [String]? = nil, blockedRegions: [String]? = nil,
                hdcp: HDCPLevel? = nil, minSecurityLevel: SecurityLevel? = nil, allowVirtualMachines: Bool? = nil) {
        self.rentalPurchaseWindowSeconds = rentalPurchaseWindowSeconds
        self.rentalPlaybackWindowSeconds = rentalPlaybackWindowSeconds
        self.maxConcurrentStreams = maxConcurrentStreams
        self.allowedRegions = allowedRegions
        self.blockedRegions = blockedRegions
        self.hdcp = hdcp
        self.minSecurityLevel = minSecurityLevel
        self.allowVirtualMachines = allowVirtualMachines
    }

    public var isRental: Bool { rentalPurchaseWindowSeconds != nil || rentalPlaybackWindowSeconds != nil }

    /// Reads the member's value. Throws `.malformedMediaRules` on anything outside the schema.
    public init(json: JSONValue) throws(ManifestRefusal) {
        let bad = ManifestRefusal.malformedMediaRules
        guard case .object(let object) = json else { throw bad }
        let known: Set<String> = ["v", "rental", "maxConcurrentStreams", "allowedRegions", "blockedRegions",
                                  "hdcp", "minSecurityLevel", "allowVirtualMachines"]
        guard object.keys.allSatisfy(known.contains) else { throw bad }
        guard case .number(let version)? = object["v"], version.text == "1" else { throw bad }
        self.init()
        if let rental = object["rental"] {
            guard case .object(let fields) = rental, !fields.isEmpty,
                  fields.keys.allSatisfy(["purchaseWindowSeconds", "playbackWindowSeconds"].contains)
            else { throw bad }
            rentalPurchaseWindowSeconds = try Self.positive(fields["purchaseWindowSeconds"])
            rentalPlaybackWindowSeconds = try Self.positive(fields["playbackWindowSeconds"])
        }
        if let value = object["maxConcurrentStreams"] {
            guard let n = try Self.positive(value), n <= 1_000 else { throw bad }
            maxConcurrentStreams = Int(n)
        }
        allowedRegions = try Self.regions(object["allowedRegions"])
        blockedRegions = try Self.regions(object["blockedRegions"])
        if let value = object["hdcp"] {
            guard case .string(let text) = value, let level = HDCPLevel(rawValue: text) else { throw bad }
            hdcp = level
        }
        if let value = object["minSecurityLevel"] {
            guard case .string(let text) = value, let level = SecurityLevel(rawValue: text) else { throw bad }
            minSecurityLevel = level
        }
        if let value = object["allowVirtualMachines"] {
            guard case .bool(let allowed) = value else { throw bad }
            allowVirtualMachines = allowed
        }
    }

    private static func positive(_ value: JSONValue?) throws(ManifestRefusal) -> Int64? {
        guard let value else { return nil }
        guard case .number(let number) = value, let n = number.int64, String(n) == number.text, n > 0 else {
            throw .malformedMediaRules
        }
        return n
    }

    private static func regions(_ value: JSONValue?) throws(ManifestRefusal) -> [String]? {
        guard let value else { return nil }
        guard case .array(let items) = value, !items.isEmpty else { throw .malformedMediaRules }
        var codes: [String] = []
        for item in items {
            guard case .string(let code) = item, isRegionCode(code), !codes.contains(code) else { throw .malformedMediaRules }
            codes.append(code)
        }
        return codes
    }

    /// Two ASCII upper-case letters.
    static func isRegionCode(_ text: String) -> Bool {
        text.utf8.count == 2 && text.utf8.allSatisfy { (0x41...0x5A).contains($0) }
    }
}

/// Device security levels, ordered: a software client (the open path) is below a FairPlay
/// `baseline` device, which is below `main`. Compared by rank, never by name.
public enum SecurityLevel: String, Sendable, Equatable, CaseIterable, Comparable {
    case software, baseline, main

    var rank: Int {
        switch self {
        case .software: 0
        case .baseline: 1
        case .main: 2
        }
    }

    public static func < (lhs: SecurityLevel, rhs: SecurityLevel) -> Bool { lhs.rank < rhs.rank }
}

/// Output protection, ordered: none < HDCP Type 0 < HDCP Type 1. (`unprotected` is spelled
/// `"none"` on the wire; a Swift case named `none` would read as `Optional.none`.)
public enum HDCPLevel: String, Sendable, Equatable, CaseIterable, Comparable {
    case unprotected = "none", type0, type1

    var rank: Int {
        switch self {
        case .unprotected: 0
        case .type0: 1
        case .type1: 2
        }
    }

    /// The FairPlay SDK's `hdcp-type`: -1 (not required), 0 or 1.
    public var fairPlayHDCPType: Int {
        switch self {
        case .unprotected: -1
        case .type0: 0
        case .type1: 1
        }
    }

    public static func < (lhs: HDCPLevel, rhs: HDCPLevel) -> Bool { lhs.rank < rhs.rank }
}
