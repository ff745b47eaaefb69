import Foundation
import MediaDRMJSON
import MediaDRMProtobuf

/// `kas.RewrapRequest`: `signed_request_token` = 1 (field 2, the old `bearer`, is reserved and
/// skipped like any unknown field).
package struct RewrapRequest: Sendable, Equatable {
    public var signedRequestToken: String

    public init(signedRequestToken: String = "") {
        self.signedRequestToken = signedRequestToken
    }

    public init(protobuf data: some DataProtocol) throws(ProtobufError) {
        self.init()
        var reader = ProtobufReader(data)
        while let tag = try reader.nextTag() {
            switch tag.fieldNumber {
            case 1: try ProtobufReader.expect(tag, .lengthDelimited); signedRequestToken = try reader.readString()
            default: try reader.skip(tag.wireType)
            }
        }
    }

    public var protobufData: Data {
        var writer = ProtobufWriter()
        writer.writeString(1, signedRequestToken)
        return writer.data
    }

    public init(json object: JSONObject) throws(OpenTDFError) {
        self.signedRequestToken = try ProtoJSON.string(object, "signedRequestToken", "signed_request_token", in: "RewrapRequest")
    }

    public var jsonValue: JSONValue {
        signedRequestToken.isEmpty ? .object(JSONObject()) : .object(JSONObject([("signedRequestToken", .string(signedRequestToken))]))
    }
}

/// `kas.KeyAccessRewrapResult`: `key_access_object_id` = 2, `status` = 3 ("permit" | "fail"),
/// oneof `kas_wrapped_key` = 4 | `error` = 5. The `metadata` map (1) is neither written nor read.
package struct KeyAccessRewrapResult: Sendable, Equatable {
    public enum Outcome: Sendable, Equatable {
        case kasWrappedKey(Data)
        case error(String)
    }

    public static let permit = "permit"
    public static let fail = "fail"

    public var keyAccessObjectID: String
    public var status: String
    public var outcome: Outcome?

    public init(keyAccessObjectID: String = "", status: String = "", outcome: Outcome? = nil) {
        self.keyAccessObjectID = keyAccessObjectID
        self.status = status
        self.outcome = outcome
    }

    public static func permitted(_ id: String, wrappedKey: Data) -> KeyAccessRewrapResult {
        KeyAccessRewrapResult(keyAccessObjectID: id, status: permit, outcome: .kasWrappedKey(wrappedKey))
    }

    public static func failed(_ id: String, _ reason: String) -> KeyAccessRewrapResult {
        KeyAccessRewrapResult(keyAccessObjectID: id, status: fail, outcome: .error(reason))
    }

    public var kasWrappedKey: Data? {
        if case .kasWrappedKey(let key) = outcome { return key }
        return nil
    }

    public var error: String? {
        if case .error(let text) = outcome { return text }
        return nil
    }

    init(reader: inout ProtobufReader) throws(ProtobufError) {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.fieldNumber {
            case 2: try ProtobufReader.expect(tag, .lengthDelimited); keyAccessObjectID = try reader.readString()
            case 3: try ProtobufReader.expect(tag, .lengthDelimited); status = try reader.readString()
            case 4: try ProtobufReader.expect(tag, .lengthDelimited); outcome = .kasWrappedKey(try reader.readBytes())
            case 5: try ProtobufReader.expect(tag, .lengthDelimited); outcome = .error(try reader.readString())
            default: try reader.skip(tag.wireType)
            }
        }
    }

    var protobufWriter: ProtobufWriter {
        var writer = ProtobufWriter()
        writer.writeString(2, keyAccessObjectID)
        writer.writeString(3, status)
        switch outcome {
        case .kasWrappedKey(let key): writer.writeBytes(4, key, always: true)
        case .error(let text): writer.writeString(5, text, always: true)
        case nil: break
        }
        return writer
    }

    init(json object: JSONObject) throws(OpenTDFError) {
        let name = "KeyAccessRewrapResult"
        self.keyAccessObjectID = try ProtoJSON.string(object, "keyAccessObjectId", "key_access_object_id", in: name)
        self.status = try ProtoJSON.string(object, "status", in: name)
        let wrapped = try ProtoJSON.value(object, "kasWrappedKey", "kas_wrapped_key", in: name)
        let error = try ProtoJSON.value(object, "error", in: name)
        switch (wrapped, error) {
        case (nil, nil): self.outcome = nil
        case (.some, nil): self.outcome = .kasWrappedKey(try ProtoJSON.bytes(object, "kasWrappedKey", "kas_wrapped_key", in: name))
        case (nil, .some): self.outcome = .error(try ProtoJSON.string(object, "error", in: name))
        case (.some, .some): throw OpenTDFError(.malformedRequest, "\(name) sets both members of the oneof result")
        }
    }

    var jsonValue: JSONValue {
        var members: [(String, JSONValue)] = []
        if !keyAccessObjectID.isEmpty { members.append(("keyAccessObjectId", .string(keyAccessObjectID))) }
        if !status.isEmpty { members.append(("status", .string(status))) }
        switch outcome {
        case .kasWrappedKey(let key): members.append(("kasWrappedKey", .string(ProtoJSON.encodeBytes(key))))
        case .error(let text): members.append(("error", .string(text)))
        case nil: break
        }
        return .object(JSONObject(members))
    }
}

/// `kas.PolicyRewrapResult`: `policy_id` = 1, repeated `results` = 2.
package struct PolicyRewrapResult: Sendable, Equatable {
    public var policyID: String
    public var results: [KeyAccessRewrapResult]

    public init(policyID: String = "", results: [KeyAccessRewrapResult] = []) {
        self.policyID = policyID
        self.results = results
    }

    init(reader: inout ProtobufReader) throws(ProtobufError) {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.fieldNumber {
            case 1: try ProtobufReader.expect(tag, .lengthDelimited); policyID = try reader.readString()
            case 2:
                try ProtobufReader.expect(tag, .lengthDelimited)
                var inner = try reader.readMessage()
                results.append(try KeyAccessRewrapResult(reader: &inner))
            default: try reader.skip(tag.wireType)
            }
        }
    }

    var protobufWriter: ProtobufWriter {
        var writer = ProtobufWriter()
        writer.writeString(1, policyID)
        for result in results { writer.writeMessage(2, result.protobufWriter) }
        return writer
    }

    init(json object: JSONObject) throws(OpenTDFError) {
        let name = "PolicyRewrapResult"
        self.policyID = try ProtoJSON.string(object, "policyId", "policy_id", in: name)
        var results: [KeyAccessRewrapResult] = []
        for item in try ProtoJSON.array(object, "results", in: name) {
            results.append(try KeyAccessRewrapResult(json: try ProtoJSON.root(item, "\(name).results[]")))
        }
        self.results = results
    }

    var jsonValue: JSONValue {
        var members: [(String, JSONValue)] = []
        if !policyID.isEmpty { members.append(("policyId", .string(policyID))) }
        if !results.isEmpty { members.append(("results", .array(results.map(\.jsonValue)))) }
        return .object(JSONObject(members))
    }
}

/// `kas.RewrapResponse`: `entity_wrapped_key` = 2 (v1), `session_public_key` = 3 (PEM of the
/// KAS ephemeral key for EC clients), `schema_version` = 4, repeated `responses` = 5 (v2). The
/// deprecated `metadata` map (1) is neither written nor read.
package struct RewrapResponse: Sendable, Equatable {
    public var entityWrappedKey: Data
    public var sessionPublicKey: String
    public var schemaVersion: String
    public var responses: [PolicyRewrapResult]

    public init(entityWrappedKey: Data = Data(), sessionPublicKey: String = "", schemaVersion: String = "",
                responses: [PolicyRewrapResult] = []) {
        self.entityWrappedKey = entityWrappedKey
        self.sessionPublicKey = sessionPublicKey
        self.schemaVersion = schemaVersion
        self.responses = responses
    }

    public init(protobuf data: some DataProtocol) throws(ProtobufError) {
        self.init()
        var reader = ProtobufReader(data)
        while let tag = try reader.nextTag() {
            switch tag.fieldNumber {
            case 2: try ProtobufReader.expect(tag, .lengthDelimited); entityWrappedKey = try reader.readBytes()
            case 3: try ProtobufReader.expect(tag, .lengthDelimited); sessionPublicKey = try reader.readString()
            case 4: try ProtobufReader.expect(tag, .lengthDelimited); schemaVersion = try reader.readString()
            case 5:
                try ProtobufReader.expect(tag, .lengthDelimited)
                var inner = try reader.readMessage()
                responses.append(try PolicyRewrapResult(reader: &inner))
            default: try reader.skip(tag.wireType)
            }
        }
    }

    public var protobufData: Data {
        var writer = ProtobufWriter()
        writer.writeBytes(2, entityWrappedKey)
        writer.writeString(3, sessionPublicKey)
        writer.writeString(4, schemaVersion)
        for response in responses { writer.writeMessage(5, response.protobufWriter) }
        return writer.data
    }

    public init(json object: JSONObject) throws(OpenTDFError) {
        let name = "RewrapResponse"
        self.entityWrappedKey = try ProtoJSON.bytes(object, "entityWrappedKey", "entity_wrapped_key", in: name)
        self.sessionPublicKey = try ProtoJSON.string(object, "sessionPublicKey", "session_public_key", in: name)
        self.schemaVersion = try ProtoJSON.string(object, "schemaVersion", "schema_version", in: name)
        var responses: [PolicyRewrapResult] = []
        for item in try ProtoJSON.array(object, "responses", in: name) {
            responses.append(try PolicyRewrapResult(json: try ProtoJSON.root(item, "\(name).responses[]")))
        }
        self.responses = responses
    }

    /// proto3 JSON (camelCase, bytes as standard base64, defaults omitted).
    public var jsonValue: JSONValue {
        var members: [(String, JSONValue)] = []
        if !entityWrappedKey.isEmpty { members.append(("entityWrappedKey", .string(ProtoJSON.encodeBytes(entityWrappedKey)))) }
        if !sessionPublicKey.isEmpty { members.append(("sessionPublicKey", .string(sessionPublicKey))) }
        if !schemaVersion.isEmpty { members.append(("schemaVersion", .string(schemaVersion))) }
        if !responses.isEmpty { members.append(("responses", .array(responses.map(\.jsonValue)))) }
        return .object(JSONObject(members))
    }
}
