import Foundation
import MediaDRMJSON

/// The index file `keys/index.json`: which keys exist, which one is active per algorithm, and
/// the last serial used per algorithm (so a removed kid is never handed out again, and an old
/// manifest's kid can never select a newer key).
///
/// ```json
/// {
///   "version": 1,
///   "active": {"ec:secp256r1": "e2", "rsa:2048": "r1"},
///   "serials": {"ec:secp256r1": 2, "rsa:2048": 1},
///   "keys": [
///     {"kid": "r1", "algorithm": "rsa:2048", "created": 1767225600},
///     {"kid": "e1", "algorithm": "ec:secp256r1", "created": 1767225600, "retired": 1769904000},
///     {"kid": "e2", "algorithm": "ec:secp256r1", "created": 1769904000}
///   ],
///   "devIssuer": {"kid": "dev1", "algorithm": "ES256", "created": 1767225600},
///   "licenseSigners": {"serial": 2, "keys": [
///     {"kid": "l1", "created": 1767225600, "retired": 1769904000}, {"kid": "l2", "created": 1769904000}]}
/// }
/// ```
/// Times are Unix seconds. Unknown members are refused, as are duplicate kids, kids that are not
/// `[A-Za-z0-9_-]{1,64}`, an `active` entry that disagrees with the keys' `retired` times, and an
/// algorithm with keys but no active key. `licenseSigners` (the offline-licence signing keys,
/// `OfflineLicenseSigner`) follows the same rules: exactly one key without `retired` when any.
struct KeyRingIndex: Sendable, Equatable {
    static let version: Int64 = 1

    var entries: [KeyRingEntry]
    var serials: [KeyAlgorithm: Int64]
    var devIssuer: DevIssuerEntry?
    var licenseSigners = LicenseSigners()

    struct DevIssuerEntry: Sendable, Equatable {
        var kid: String
        var created: Date
    }

    /// The offline-licence signing keys and the last serial handed out.
    struct LicenseSigners: Sendable, Equatable {
        struct Entry: Sendable, Equatable {
            var kid: String
            var created: Date
            var retired: Date?
        }

        var serial: Int64 = 0
        var entries: [Entry] = []

        var active: Entry? { entries.first { $0.retired == nil } }

        mutating func nextKid() -> String {
            serial += 1
            return OfflineLicenseSigner.kidPrefix + String(serial)
        }
    }

    static let empty = KeyRingIndex(entries: [], serials: [:], devIssuer: nil)

    func active(_ algorithm: KeyAlgorithm) -> KeyRingEntry? {
        entries.first { $0.algorithm == algorithm && $0.isActive }
    }

    /// The next kid of `algorithm` (`r1`, `r2`, ... / `e1`, `e2`, ...).
    mutating func nextKid(_ algorithm: KeyAlgorithm) -> String {
        let serial = (serials[algorithm] ?? 0) + 1
        serials[algorithm] = serial
        return algorithm.kidPrefix + String(serial)
    }

    static func isValidKid(_ kid: String) -> Bool {
        !kid.isEmpty && kid.utf8.count <= 64 && kid.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
                true
            default:
                false
            }
        }
    }

    // MARK: Reading

    init(entries: [KeyRingEntry], serials: [KeyAlgorithm: Int64], devIssuer: DevIssuerEntry?) {
        self.entries = entries
        self.serials = serials
        self.devIssuer = devIssuer
    }

    /// Parses and checks the index. `file` names the file in error reasons.
    init(bytes: [UInt8], file: String) throws(KeyRingError) {
        let corrupt = { (what: String) in KeyRingError(.corruptIndex, "key ring index '\(file)': \(what)") }
        /// JSON accessor failures become index corruption naming the field.
        func field<T>(_ body: () throws(JSONError) -> T) throws(KeyRingError) -> T {
            do { return try body() } catch { throw corrupt(error.reason) }
        }
        let parsed: JSONValue
        do {
            parsed = try JSONParser.parse(bytes)
        } catch {
            throw corrupt("not valid JSON (\(error.code.rawValue))")
        }
        guard case .object(let root) = parsed else { throw corrupt("not a JSON object") }
        try field { () throws(JSONError) in
            try root.requireOnlyKeys(["version", "active", "serials", "keys", "devIssuer", "licenseSigners"])
        }
        guard try field({ () throws(JSONError) in try root.requireInt64("version") }) == Self.version else {
            throw corrupt("unsupported version (expected 1)")
        }
        let active = try Self.algorithmMap(field { () throws(JSONError) in try root.requireObject("active") }, "active", corrupt) { value in
            value.string.flatMap { Self.isValidKid($0) ? $0 : nil }
        }
        serials = try Self.algorithmMap(field { () throws(JSONError) in try root.requireObject("serials") }, "serials", corrupt) { value in
            value.int64.flatMap { $0 >= 0 ? $0 : nil }
        }
        var seen = Set<String>()
        var entries: [KeyRingEntry] = []
        let items = try field { () throws(JSONError) in try root.requireArray("keys") }
        for (position, item) in items.enumerated() {
            guard case .object(let object) = item else { throw corrupt("keys[\(position)] is not an object") }
            try field { () throws(JSONError) in try object.requireOnlyKeys(["kid", "algorithm", "created", "retired"]) }
            let kid = try field { () throws(JSONError) in try object.requireString("kid") }
            guard Self.isValidKid(kid) else { throw corrupt("keys[\(position)].kid is not a valid kid") }
            guard seen.insert(kid).inserted else { throw corrupt("kid '\(kid)' appears twice") }
            let algorithmName = try field { () throws(JSONError) in try object.requireString("algorithm") }
            guard let algorithm = KeyAlgorithm(rawValue: algorithmName) else {
                throw corrupt("keys[\(position)].algorithm is not rsa:2048 or ec:secp256r1")
            }
            let created = try Self.time(object, "created", corrupt)
            let retired: Date? = object["retired"] == nil ? nil : try Self.time(object, "retired", corrupt)
            let isActive = active[algorithm] == kid
            guard isActive == (retired == nil) else {
                throw corrupt(isActive ? "active key '\(kid)' has a retired time"
                                       : "key '\(kid)' is neither active nor retired")
            }
            entries.append(KeyRingEntry(kid: kid, algorithm: algorithm, created: created, retired: retired))
        }
        for (algorithm, kid) in active where !entries.contains(where: { $0.kid == kid && $0.algorithm == algorithm }) {
            throw corrupt("active \(algorithm.rawValue) key '\(kid)' is not listed in keys")
        }
        for algorithm in KeyAlgorithm.allCases
        where entries.contains(where: { $0.algorithm == algorithm }) && active[algorithm] == nil {
            throw corrupt("\(algorithm.rawValue) has keys but no active key")
        }
        for entry in entries {
            let serial = Int64(entry.kid.dropFirst(entry.algorithm.kidPrefix.count)) ?? 0
            if entry.kid.hasPrefix(entry.algorithm.kidPrefix), serial > (serials[entry.algorithm] ?? 0) {
                throw corrupt("serials.\(entry.algorithm.rawValue) is below the serial of '\(entry.kid)'")
            }
        }
        self.entries = entries
        if let issuer = try field({ () throws(JSONError) in try root.optionalObject("devIssuer") }) {
            try field { () throws(JSONError) in try issuer.requireOnlyKeys(["kid", "algorithm", "created"]) }
            let kid = try field { () throws(JSONError) in try issuer.requireString("kid") }
            guard Self.isValidKid(kid), !seen.contains(kid) else {
                throw corrupt("devIssuer.kid is not a valid, unique kid")
            }
            guard try field({ () throws(JSONError) in try issuer.requireString("algorithm") }) == "ES256" else {
                throw corrupt("devIssuer.algorithm must be ES256")
            }
            devIssuer = DevIssuerEntry(kid: kid, created: try Self.time(issuer, "created", corrupt))
            seen.insert(kid)
        } else {
            devIssuer = nil
        }
        if let signers = try field({ () throws(JSONError) in try root.optionalObject("licenseSigners") }) {
            licenseSigners = try Self.licenseSigners(signers, seen: seen, corrupt)
        }
    }

    private static func licenseSigners(
        _ object: JSONObject, seen: Set<String>, _ corrupt: (String) -> KeyRingError
    ) throws(KeyRingError) -> LicenseSigners {
        func read<T>(_ body: () throws(JSONError) -> T) throws(KeyRingError) -> T {
            do { return try body() } catch { throw corrupt("licenseSigners: " + error.reason) }
        }
        try read { () throws(JSONError) in try object.requireOnlyKeys(["serial", "keys"]) }
        var signers = LicenseSigners()
        signers.serial = try read { () throws(JSONError) in try object.requireInt64("serial") }
        var seen = seen
        for (position, item) in try read({ () throws(JSONError) in try object.requireArray("keys") }).enumerated() {
            guard case .object(let key) = item else { throw corrupt("licenseSigners.keys[\(position)] is not an object") }
            try read { () throws(JSONError) in try key.requireOnlyKeys(["kid", "created", "retired"]) }
            let kid = try read { () throws(JSONError) in try key.requireString("kid") }
            guard isValidKid(kid), seen.insert(kid).inserted else {
                throw corrupt("licenseSigners.keys[\(position)].kid is not a valid, unique kid")
            }
            let serial = Int64(kid.dropFirst(OfflineLicenseSigner.kidPrefix.count)) ?? 0
            if kid.hasPrefix(OfflineLicenseSigner.kidPrefix), serial > signers.serial {
                throw corrupt("licenseSigners.serial is below the serial of '\(kid)'")
            }
            let retired: Date? = key["retired"] == nil ? nil : try time(key, "retired", corrupt)
            signers.entries.append(LicenseSigners.Entry(kid: kid, created: try time(key, "created", corrupt), retired: retired))
        }
        guard signers.entries.isEmpty || signers.entries.filter({ $0.retired == nil }).count == 1 else {
            throw corrupt("licenseSigners must have exactly one active key (without retired)")
        }
        return signers
    }

    private static func algorithmMap<T>(
        _ object: JSONObject, _ name: String, _ corrupt: (String) -> KeyRingError, _ read: (JSONValue) -> T?
    ) throws(KeyRingError) -> [KeyAlgorithm: T] {
        var map: [KeyAlgorithm: T] = [:]
        for (key, value) in object {
            guard let algorithm = KeyAlgorithm(rawValue: key) else {
                throw corrupt("\(name) names an unknown algorithm")
            }
            guard let typed = read(value) else { throw corrupt("\(name).\(key) has an invalid value") }
            map[algorithm] = typed
        }
        return map
    }

    private static func time(_ object: JSONObject, _ key: String, _ corrupt: (String) -> KeyRingError) throws(KeyRingError) -> Date {
        guard let seconds = object[key]?.int64, seconds >= 0 else {
            throw corrupt("'\(key)' must be a non-negative integer (Unix seconds)")
        }
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    // MARK: Writing

    var jsonValue: JSONValue {
        func seconds(_ date: Date) -> JSONValue {
            .number(JSONNumber(Int64(date.timeIntervalSince1970.rounded(.down))))
        }
        var active: [(String, JSONValue)] = []
        var serialMembers: [(String, JSONValue)] = []
        for algorithm in KeyAlgorithm.allCases {
            if let entry = self.active(algorithm) { active.append((algorithm.rawValue, .string(entry.kid))) }
            if let serial = serials[algorithm] { serialMembers.append((algorithm.rawValue, .number(JSONNumber(serial)))) }
        }
        let keys: [JSONValue] = entries.map { entry in
            var members: [(String, JSONValue)] = [
                ("kid", .string(entry.kid)), ("algorithm", .string(entry.algorithm.rawValue)),
                ("created", seconds(entry.created)),
            ]
            if let retired = entry.retired { members.append(("retired", seconds(retired))) }
            return .object(JSONObject(members))
        }
        var root: [(String, JSONValue)] = [
            ("version", .number(JSONNumber(Self.version))),
            ("active", .object(JSONObject(active))),
            ("serials", .object(JSONObject(serialMembers))),
            ("keys", .array(keys)),
        ]
        if let devIssuer {
            root.append(("devIssuer", .object(JSONObject([
                ("kid", .string(devIssuer.kid)), ("algorithm", .string("ES256")),
                ("created", seconds(devIssuer.created)),
            ]))))
        }
        if !licenseSigners.entries.isEmpty {
            let keys: [JSONValue] = licenseSigners.entries.map { entry in
                var members: [(String, JSONValue)] = [("kid", .string(entry.kid)), ("created", seconds(entry.created))]
                if let retired = entry.retired { members.append(("retired", seconds(retired))) }
                return .object(JSONObject(members))
            }
            root.append(("licenseSigners", .object(JSONObject([
                ("serial", .number(JSONNumber(licenseSigners.serial))), ("keys", .array(keys)),
            ]))))
        }
        return .object(JSONObject(root))
    }

    var bytes: Data {
        var data = JSONWriter.write(jsonValue, options: [.prettyPrinted])
        data.append(0x0A)
        return data
    }
}
