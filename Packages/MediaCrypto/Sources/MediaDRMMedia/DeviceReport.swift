import MediaDRMJSON

/// A client's device report (`device` in session start and key request, docs/protocol.md):
/// `securityLevel`, `hdcp`, `virtualMachine`. Closed schema. On the open path it can only lower
/// trust.
public struct DeviceReport: Sendable, Equatable {
    /// The member names, each written once.
    public static let members: Set<String> = ["securityLevel", "hdcp", "virtualMachine"]

    public var securityLevel: SecurityLevel?
    public var hdcp: HDCPLevel?
    public var virtualMachine: Bool?

    public init(securityLevel: SecurityLevel? = nil, hdcp: HDCPLevel? = nil, virtualMachine: Bool? = nil) {
        self.securityLevel = securityLevel
        self.hdcp = hdcp
        self.virtualMachine = virtualMachine
    }

    /// nil for anything outside the schema.
    public init?(json: JSONValue) {
        guard case .object(let object) = json, object.keys.allSatisfy(Self.members.contains) else { return nil }
        if let value = object["securityLevel"] {
            guard case .string(let text) = value, let level = SecurityLevel(rawValue: text) else { return nil }
            securityLevel = level
        }
        if let value = object["hdcp"] {
            guard case .string(let text) = value, let level = HDCPLevel(rawValue: text) else { return nil }
            hdcp = level
        }
        if let value = object["virtualMachine"] {
            guard case .bool(let flag) = value else { return nil }
            virtualMachine = flag
        }
    }

    public var jsonValue: JSONValue {
        var members: [(String, JSONValue)] = []
        if let securityLevel { members.append(("securityLevel", .string(securityLevel.rawValue))) }
        if let hdcp { members.append(("hdcp", .string(hdcp.rawValue))) }
        if let virtualMachine { members.append(("virtualMachine", .bool(virtualMachine))) }
        return .object(JSONObject(members))
    }
}
