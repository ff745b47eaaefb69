import MediaDRMJSON

// The `arkavo:media` wire form, written and read with the member names of `MediaRules.Member`.
extension MediaRules {
    /// The member's value, with only the rules that were given.
    public var jsonValue: JSONValue {
        var members: [(String, JSONValue)] = [(Member.version.key, .number(JSONNumber(Self.version)))]
        if isRental {
            var rental: [(String, JSONValue)] = []
            if let w = rentalPurchaseWindowSeconds { rental.append((Member.rentalPurchaseWindow.key, .number(JSONNumber(w)))) }
            if let w = rentalPlaybackWindowSeconds { rental.append((Member.rentalPlaybackWindow.key, .number(JSONNumber(w)))) }
            members.append((Member.rental.key, .object(JSONObject(rental))))
        }
        if let n = maxConcurrentStreams { members.append((Member.maxConcurrentStreams.key, .number(JSONNumber(n)))) }
        if let list = allowedRegions { members.append((Member.allowedRegions.key, .array(list.map { .string($0) }))) }
        if let list = blockedRegions { members.append((Member.blockedRegions.key, .array(list.map { .string($0) }))) }
        if let hdcp { members.append((Member.hdcp.key, .string(hdcp.rawValue))) }
        if let level = minSecurityLevel { members.append((Member.minSecurityLevel.key, .string(level.rawValue))) }
        if let vm = allowVirtualMachines { members.append((Member.allowVirtualMachines.key, .bool(vm))) }
        if let offline { members.append((Member.offline.key, .bool(offline))) }
        if let s = offlineLicenseDurationSeconds { members.append((Member.offlineLicenseDuration.key, .number(JSONNumber(s)))) }
        if let s = offlinePlaybackWindowSeconds { members.append((Member.offlinePlaybackWindow.key, .number(JSONNumber(s)))) }
        if let n = maxOfflineDevices { members.append((Member.maxOfflineDevices.key, .number(JSONNumber(n)))) }
        if let n = livePeriod { members.append((Member.livePeriod.key, .number(JSONNumber(n)))) }
        if let s = livePeriodStart { members.append((Member.livePeriodStart.key, .number(JSONNumber(s)))) }
        if let s = livePeriodSeconds { members.append((Member.livePeriodSeconds.key, .number(JSONNumber(s)))) }
        return .object(JSONObject(members))
    }

    /// Reads the member's value strictly (closed schema, exact types, integers written as
    /// integers), then applies `validate()`.
    public init(json: JSONValue) throws(MediaRulesError) {
        guard case .object(let object) = json else { throw MediaRulesError(nil, "is not a JSON object") }
        let topLevel = Member.allCases.filter { !$0.rawValue.contains(".") }.map(\.key)
        if let unknown = object.keys.first(where: { !topLevel.contains($0) }) {
            throw MediaRulesError(nil, "has the unknown member '\(unknown)'")
        }
        guard case .number(let version)? = object[Member.version.key], version.text == String(Self.version) else {
            throw MediaRulesError(.version, "must be \(Self.version)")
        }
        self.init()
        if let rental = object[Member.rental.key] {
            let keys = [Member.rentalPurchaseWindow.key, Member.rentalPlaybackWindow.key]
            guard case .object(let fields) = rental, !fields.isEmpty, fields.keys.allSatisfy(keys.contains) else {
                throw MediaRulesError(.rental, "must be an object of purchaseWindowSeconds and/or playbackWindowSeconds")
            }
            rentalPurchaseWindowSeconds = try Self.integer(fields[Member.rentalPurchaseWindow.key], .rentalPurchaseWindow)
            rentalPlaybackWindowSeconds = try Self.integer(fields[Member.rentalPlaybackWindow.key], .rentalPlaybackWindow)
        }
        if let n = try Self.integer(object[Member.maxConcurrentStreams.key], .maxConcurrentStreams) {
            guard let count = Int(exactly: n) else { throw MediaRulesError(.maxConcurrentStreams, "is out of range") }
            maxConcurrentStreams = count
        }
        allowedRegions = try Self.strings(object[Member.allowedRegions.key], .allowedRegions)
        blockedRegions = try Self.strings(object[Member.blockedRegions.key], .blockedRegions)
        if let value = object[Member.hdcp.key] {
            guard case .string(let text) = value, let level = HDCPLevel(rawValue: text) else {
                throw MediaRulesError(.hdcp, "must be one of " + HDCPLevel.allCases.map(\.rawValue).joined(separator: ", "))
            }
            hdcp = level
        }
        if let value = object[Member.minSecurityLevel.key] {
            guard case .string(let text) = value, let level = SecurityLevel(rawValue: text) else {
                throw MediaRulesError(.minSecurityLevel, "must be one of " + SecurityLevel.allCases.map(\.rawValue).joined(separator: ", "))
            }
            minSecurityLevel = level
        }
        allowVirtualMachines = try Self.bool(object[Member.allowVirtualMachines.key], .allowVirtualMachines)
        offline = try Self.bool(object[Member.offline.key], .offline)
        offlineLicenseDurationSeconds = try Self.integer(object[Member.offlineLicenseDuration.key], .offlineLicenseDuration)
        offlinePlaybackWindowSeconds = try Self.integer(object[Member.offlinePlaybackWindow.key], .offlinePlaybackWindow)
        if let n = try Self.integer(object[Member.maxOfflineDevices.key], .maxOfflineDevices) {
            guard let count = Int(exactly: n) else { throw MediaRulesError(.maxOfflineDevices, "is out of range") }
            maxOfflineDevices = count
        }
        livePeriod = try Self.integer(object[Member.livePeriod.key], .livePeriod)
        livePeriodStart = try Self.integer(object[Member.livePeriodStart.key], .livePeriodStart)
        livePeriodSeconds = try Self.integer(object[Member.livePeriodSeconds.key], .livePeriodSeconds)
        try validate()
    }

    /// An integer written as one (no fraction, exponent or sign that would re-read differently).
    private static func integer(_ value: JSONValue?, _ member: Member) throws(MediaRulesError) -> Int64? {
        guard let value else { return nil }
        guard case .number(let number) = value, let n = number.int64, String(n) == number.text else {
            throw MediaRulesError(member, "must be an integer")
        }
        return n
    }

    private static func bool(_ value: JSONValue?, _ member: Member) throws(MediaRulesError) -> Bool? {
        guard let value else { return nil }
        guard case .bool(let flag) = value else { throw MediaRulesError(member, "must be true or false") }
        return flag
    }

    private static func strings(_ value: JSONValue?, _ member: Member) throws(MediaRulesError) -> [String]? {
        guard let value else { return nil }
        guard case .array(let items) = value else { throw MediaRulesError(member, "must be an array of region codes") }
        var strings: [String] = []
        for item in items {
            guard case .string(let text) = item else { throw MediaRulesError(member, "must be an array of region codes") }
            strings.append(text)
        }
        return strings
    }
}
