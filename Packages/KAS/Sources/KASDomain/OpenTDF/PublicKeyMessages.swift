import Foundation
import MediaDRMJSON
import MediaDRMProtobuf

/// `kas.PublicKeyRequest`: `algorithm` = 1 (`rsa:2048` | `ec:secp256r1`), `fmt` = 2, `v` = 3.
package struct PublicKeyRequest: Sendable, Equatable {
    public var algorithm: String
    public var fmt: String
    public var v: String

    public init(algorithm: String = "", fmt: String = "", v: String = "") {
        self.algorithm = algorithm
        self.fmt = fmt
        self.v = v
    }

    public init(protobuf data: some DataProtocol) throws(ProtobufError) {
        self.init()
        var reader = ProtobufReader(data)
        while let tag = try reader.nextTag() {
            switch tag.fieldNumber {
            case 1: try ProtobufReader.expect(tag, .lengthDelimited); algorithm = try reader.readString()
            case 2: try ProtobufReader.expect(tag, .lengthDelimited); fmt = try reader.readString()
            case 3: try ProtobufReader.expect(tag, .lengthDelimited); v = try reader.readString()
            default: try reader.skip(tag.wireType)
            }
        }
    }

    public var protobufData: Data {
        var writer = ProtobufWriter()
        writer.writeString(1, algorithm)
        writer.writeString(2, fmt)
        writer.writeString(3, v)
        return writer.data
    }

    /// Refuses members other than `algorithm`, `fmt` and `v` (the request carries nothing else,
    /// and a misspelt option must not silently fall back to the default key).
    public init(json object: JSONObject) throws(OpenTDFError) {
        try ProtoJSON.refuseUnknownMembers(object, known: ["algorithm", "fmt", "v"], in: "PublicKeyRequest")
        self.algorithm = try ProtoJSON.string(object, "algorithm", in: "PublicKeyRequest")
        self.fmt = try ProtoJSON.string(object, "fmt", in: "PublicKeyRequest")
        self.v = try ProtoJSON.string(object, "v", in: "PublicKeyRequest")
    }

    public var jsonValue: JSONValue {
        var members: [(String, JSONValue)] = []
        if !algorithm.isEmpty { members.append(("algorithm", .string(algorithm))) }
        if !fmt.isEmpty { members.append(("fmt", .string(fmt))) }
        if !v.isEmpty { members.append(("v", .string(v))) }
        return .object(JSONObject(members))
    }
}

/// `kas.PublicKeyResponse`: `public_key` = 1 (PEM), `kid` = 2.
package struct PublicKeyResponse: Sendable, Equatable {
    public var publicKey: String
    public var kid: String

    public init(publicKey: String = "", kid: String = "") {
        self.publicKey = publicKey
        self.kid = kid
    }

    public init(protobuf data: some DataProtocol) throws(ProtobufError) {
        self.init()
        var reader = ProtobufReader(data)
        while let tag = try reader.nextTag() {
            switch tag.fieldNumber {
            case 1: try ProtobufReader.expect(tag, .lengthDelimited); publicKey = try reader.readString()
            case 2: try ProtobufReader.expect(tag, .lengthDelimited); kid = try reader.readString()
            default: try reader.skip(tag.wireType)
            }
        }
    }

    public var protobufData: Data {
        var writer = ProtobufWriter()
        writer.writeString(1, publicKey)
        writer.writeString(2, kid)
        return writer.data
    }

    public init(json object: JSONObject) throws(OpenTDFError) {
        self.publicKey = try ProtoJSON.string(object, "publicKey", "public_key", in: "PublicKeyResponse")
        self.kid = try ProtoJSON.string(object, "kid", in: "PublicKeyResponse")
    }

    /// proto3 JSON: `{"publicKey", "kid"}`, empty members omitted.
    public var jsonValue: JSONValue {
        var members: [(String, JSONValue)] = []
        if !publicKey.isEmpty { members.append(("publicKey", .string(publicKey))) }
        if !kid.isEmpty { members.append(("kid", .string(kid))) }
        return .object(JSONObject(members))
    }
}
