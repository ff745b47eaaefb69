import Foundation
import KAS
import KASDomain
import KASHTTP
import KASObservability
import KASRedis
import MediaDRMJSON
import MediaDRMToolSupport

/// `kas token --sub alice [--ttl 3600] [--claims JSON]`: a bearer token from the dev issuer.
enum TokenCommand {
    static let maximumLifetime = 31_536_000

    static var verb: ToolVerb {
        ToolVerb("token", summary: "Print a bearer token signed by the key ring's dev issuer (for demos and tests).",
                 discussion: """
                 The token (ES256, kid of the dev issuer key) carries iss "\(DevIssuer.issuer)", \
                 aud "\(DevIssuer.audience)", sub, iat, nbf and exp = now + ttl; a KAS serving this \
                 data directory trusts it unless its configuration sets "devIssuer": false. Only the \
                 token is printed on stdout. --claims adds claims from a JSON object, such as \
                 {"entitlements": ["https://example.com/attr/tier/value/premium"], \
                 "rentals": {"<policy uuid>": <purchase time, Unix seconds>}}; it may not set iss, aud, \
                 sub, iat, nbf or exp.
                 """,
                 options: [
                    ToolOption.single("sub", valueName: "subject", help: "The viewer (the token's sub).", required: true),
                    ToolOption.single("ttl", valueName: "seconds", help: "Lifetime in seconds (1 to \(maximumLifetime)). Default: 3600."),
                    ToolOption.single("claims", valueName: "json", help: "A JSON object of extra claims."),
                    CommonOptions.dataDirectory,
                 ]) { parsed, console in
            let subject = try parsed.requiredValue("sub")
            guard !subject.isEmpty else { throw UsageError("invalid value '' for '--sub': expected a subject") }
            let lifetime = try parsed.integer("ttl", in: 1...maximumLifetime) ?? 3600
            let claims = try extraClaims(parsed.value("claims"))
            let ring = try KeyRing.load(dataDirectory: try CommonOptions.dataDirectory(parsed), sealKey: CommonOptions.sealKey())
            guard let issuer = ring.devIssuer else {
                throw ToolFailure("the key ring has no dev issuer key; run 'kas keys generate'")
            }
            console.print(try issuer.token(subject: subject, lifetime: TimeInterval(lifetime), extraClaims: claims))
        }
    }

    /// Parses `--claims` strictly and checks the project's claims have the shapes the server
    /// requires, so a bad demo token fails here rather than as a 401 later.
    static func extraClaims(_ text: String?) throws(UsageError) -> JSONObject {
        guard let text else { return JSONObject() }
        let value: JSONValue
        do throws(JSONError) {
            value = try JSONParser.parse(Data(text.utf8))
        } catch {
            throw UsageError("invalid value for '--claims': not valid JSON (\(error.reason))")
        }
        guard case .object(let claims) = value else {
            throw UsageError("invalid value for '--claims': expected a JSON object")
        }
        let reserved = claims.keys.filter { DevIssuer.reservedClaims.contains($0) }
        guard reserved.isEmpty else {
            throw UsageError("'--claims' may not set \(reserved.joined(separator: ", ")) (the tool sets iss, aud, sub, iat, nbf, exp)")
        }
        if let entitlements = claims["entitlements"] {
            guard case .array(let items) = entitlements, items.allSatisfy({ $0.string != nil }) else {
                throw UsageError("'--claims': entitlements must be an array of strings")
            }
        }
        if let rentals = claims["rentals"] {
            guard case .object(let object) = rentals, object.allSatisfy({ member in
                UUID(uuidString: member.key) != nil && (member.value.int64.map { $0 >= 0 } ?? false)
            }) else {
                throw UsageError("'--claims': rentals must be an object of policy uuid to purchase time (Unix seconds)")
            }
        }
        return claims
    }
}
