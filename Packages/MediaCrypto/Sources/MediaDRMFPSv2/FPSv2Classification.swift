// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import MediaDRMJSON

/// The creator's content classification, `arkavo:classification` (§6.3), read by the §6.4
/// rules: exactly `v` (the integer 1, written `1`), `filter` ("passed") and `flagged` (no
/// duplicates, a subset of "nudity" and "violence"). Anything else is unreadable, which makes the
/// package unsupported under every device policy.
public struct FPSv2Classification: Sendable, Equatable {
    public static let vocabulary: Set<String> = ["nudity", "violence"]

    /// The flagged types, in the order written; empty for clean content.
    public let flagged: [String]

    public var isClean: Bool { flagged.isEmpty }

    public init(flagged: [String]) {
        self.flagged = flagged
    }

    /// Reads the member's value; nil with the reason when it is unreadable.
    static func read(_ value: JSONValue?) -> Result<FPSv2Classification, FPSv2Error> {
        func unreadable(_ why: String) -> Result<FPSv2Classification, FPSv2Error> {
            .failure(FPSv2Error(.refused, "arkavo:classification is unreadable: \(why)", check: .classification))
        }
        guard let value else { return unreadable("the member is missing") }
        guard case .object(let object) = value else { return unreadable("it is not an object") }
        guard object.count == 3, object["v"] != nil, object["filter"] != nil, object["flagged"] != nil else {
            return unreadable("its members are not exactly v, filter and flagged")
        }
        guard case .number(let v)? = object["v"], v.text == "1" else { return unreadable("v is not the integer 1") }
        guard case .string("passed")? = object["filter"] else { return unreadable("filter is not \"passed\"") }
        guard case .array(let items)? = object["flagged"] else { return unreadable("flagged is not an array") }
        var seen = Set<String>()
        var flagged: [String] = []
        for item in items {
            guard case .string(let name) = item, vocabulary.contains(name) else {
                return unreadable("a flagged entry is outside the vocabulary")
            }
            guard seen.insert(name).inserted else { return unreadable("a flagged entry is repeated") }
            flagged.append(name)
        }
        return .success(FPSv2Classification(flagged: flagged))
    }
}
