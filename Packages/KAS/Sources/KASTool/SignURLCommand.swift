import Foundation
import KAS
import KASDomain
import KASHTTP
import KASObservability
import KASRedis
import MediaDRMMedia
import MediaDRMToolSupport

/// `kas sign-url --sub ID --asset ID`: a delivery-API URL with its token (docs/delivery.md#delivery-tokens).
enum SignURLCommand {
    static var verb: ToolVerb {
        ToolVerb("sign-url", summary: "Print a /v2/media URL carrying a delivery token (HS256, the delivery secret).",
                 discussion: """
                 What an operator's backend does for a viewer: signs a JWT with the delivery secret \
                 (--delivery-secret-file, else the configuration's delivery.deliverySecretFile) whose \
                 resource is /v2/media/<asset>, sub the viewer, iss the issuer of the viewer's bearer tokens \
                 (--issuer, default the dev issuer: a viewer is its issuer and sub together) and exp at most \
                 600 seconds ahead, and prints <public URL>/v2/media/<asset>?token=<JWT>. --claims adds the viewer's entitlements \
                 and rentals as in 'kas token'. The URL is a credential: hand it to that viewer only.
                 """,
                 options: [
                    ToolOption.single("sub", valueName: "subject", help: "The viewer.", required: true),
                    ToolOption.single("issuer", valueName: "iss",
                                      help: "The issuer of the viewer's bearer tokens. Default: \(DevIssuer.issuer)."),
                    ToolOption.single("asset", valueName: "id", help: "The asset id (policy uuid) or the title's media id.", required: true),
                    ToolOption.single("ttl", valueName: "seconds", help: "Lifetime, 1 to 600. Default: 300."),
                    ToolOption.single("claims", valueName: "json", help: "A JSON object of extra claims (entitlements, rentals)."),
                    ToolOption.single("delivery-secret-file", valueName: "file", help: "The delivery secret (0600, 32+ bytes)."),
                    ToolOption.single("config", valueName: "file", help: "The JSON configuration file of 'kas serve'."),
                    ToolOption.single("public-url", valueName: "url", help: "The KAS's public URL."),
                    CommonOptions.dataDirectory,
                 ]) { parsed, console in
            let subject = try parsed.requiredValue("sub")
            guard !subject.isEmpty else { throw UsageError("invalid value '' for '--sub': expected a subject") }
            // A media id's case is part of it; a uuid is written in lower case, as routes compare it.
            let given = try parsed.requiredValue("asset")
            let asset = MediaID(given)?.text ?? given.lowercased()
            guard MediaID(asset) != nil || UUID(uuidString: asset) != nil else {
                throw UsageError("invalid value for '--asset': expected a uuid (the asset id) or a media id (8 letters and digits)")
            }
            let lifetime = try parsed.integer("ttl", in: 1...Int(DeliveryTokenKey.maximumLifetime)) ?? 300
            var claims = try TokenCommand.extraClaims(parsed.value("claims"))
            let issuer = parsed.value("issuer") ?? DevIssuer.issuer
            guard !issuer.isEmpty else { throw UsageError("invalid value '' for '--issuer': expected an issuer") }
            claims["iss"] = .string(issuer)
            let configuration = try AssetsCommand.loadConfiguration(parsed, deliverySecretFile: parsed.value("delivery-secret-file"))
            guard let secretFile = configuration.delivery.deliverySecretFile else {
                throw UsageError("no delivery secret: give --delivery-secret-file or set delivery.deliverySecretFile")
            }
            let resource = "/v2/media/\(asset)"
            do throws(DeliverySecretError) {
                let key = try DeliveryTokenKey.load(path: secretFile)
                let token = try key.sign(resource: resource, subject: subject, claims: claims, lifetime: TimeInterval(lifetime))
                console.print(configuration.publicURL + resource + "?token=" + token)
            } catch {
                throw ToolFailure(error.reason)
            }
        }
    }
}
