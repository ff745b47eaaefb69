import Foundation
@testable import KAS
@testable import KASDomain
import KASTesting
import MediaDRMJSON
import MediaDRMMedia
import Testing

/// Short media ids (docs/delivery.md#catalog) through the tools and routes of one real
/// deployment (`DeliveryFixture`: `kas serve`, nginx, an fps-v2 package): `kas assets add` draws
/// one, keeps it when the title is added again and takes `--media-id`; a playback start and the
/// delivery API take it wherever they take the asset id; `kas assets remove` takes it too.
@Suite(.serialized) struct MediaIDTests {
    @Test func aTitleIsNamedByItsShortIDWhereverItsAssetIDIsTaken() throws {
        let fixture = try DeliveryFixture()
        defer { fixture.stop() }
        let alice = try fixture.token("alice")

        // Drawn when it was added: 8 letters and digits, listed beside the asset id.
        let drawn = try #require(try Self.listedMediaID(fixture))
        #expect(MediaID(drawn) != nil, "\(drawn)")

        // A playback started with it is the asset's: the answer names both.
        let started = try fixture.post("/media/v1/playback", token: alice, json: [
            ("assetId", .string(drawn)), ("drmSystem", .string("tdf")), ("clientPlatform", .string("linux")),
        ])
        #expect(started.status == 200, "\(started.text)")
        let playback = try #require(try JSONParser.parse(started.body).object)
        #expect(playback["assetId"]?.string == fixture.assetID)
        #expect(playback["mediaId"]?.string == drawn)

        // The delivery API: JW's `mediaid` is the short id, reached by either name.
        for name in [drawn, fixture.assetID] {
            let described = try fixture.request("GET", "/v2/media/\(name)", token: alice)
            #expect(described.status == 200, "\(described.text)")
            let item = try JSONParser.parse(described.body).object?["playlist"]?.array?.first?.object
            #expect(item?["mediaid"]?.string == drawn)
        }
        // `kas sign-url --asset MEDIAID`: a delivery URL that names the title by it, its case kept.
        let claims = #"{"entitlements":["\#(DeliveryFixture.gold)"]}"#
        let signed = try DeliveryFixture.tool(["sign-url", "--sub", "alice", "--asset", drawn, "--claims", claims,
                                               "--delivery-secret-file", fixture.deliverySecretFile, "--data-dir", fixture.dataDirectory,
                                               "--public-url", fixture.kas.address]).output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(signed.hasPrefix(fixture.kas.address + "/v2/media/\(drawn)?token="), "\(signed)")
        let viaToken = try fixture.request("GET", signed)
        #expect(viaToken.status == 200, "\(viaToken.text)")
        #expect(try JSONParser.parse(viaToken.body).object?["playlist"]?.array?.first?.object?["mediaid"]?.string == drawn)
        // Another case, another length or a uuid not catalogued: no such title.
        for name in [drawn.lowercased() == drawn ? drawn.uppercased() : drawn.lowercased(), String(drawn.dropLast()),
                     "00000000-0000-4000-8000-000000000000"] {
            #expect(try fixture.request("GET", "/v2/media/\(name)", token: alice).status == 404, "\(name)")
        }

        // Added again: the same id. With --media-id: that one, and the old one names nothing.
        try Self.add(fixture)
        #expect(try Self.listedMediaID(fixture) == drawn)
        let added = try Self.add(fixture, ["--media-id", "Talk2026"])
        #expect(added.stderr.contains("media id Talk2026"), "\(added.stderr)")
        #expect(try Self.listedMediaID(fixture) == "Talk2026")
        #expect(try fixture.request("GET", "/v2/media/\(drawn)", token: alice).status == 404)
        #expect(try fixture.request("GET", "/v2/media/Talk2026", token: alice).status == 200)

        // A malformed --media-id is a usage error that says what an id is; nothing changes.
        for bad in ["talk", "Talk-026", "Talk20267"] {
            let refused = try KASToolHarness.run(["assets", "add", fixture.root + "/talk.tdf", "--path", "/talk.tdf", "--media-id", bad,
                                                  "--data-dir", fixture.dataDirectory, "--public-url", fixture.kas.address])
            #expect(refused.status == 64, "\(bad): \(refused.stderr)")
            #expect(refused.stderr.contains("expected 8 letters and digits"), "\(refused.stderr)")
        }
        #expect(try Self.listedMediaID(fixture) == "Talk2026")

        // Removed by its media id.
        try DeliveryFixture.tool(["assets", "remove", "Talk2026", "--data-dir", fixture.dataDirectory])
        #expect(try JSONParser.parse(Data(try DeliveryFixture.tool(["assets", "list", "--data-dir", fixture.dataDirectory, "--json"]).output.utf8)).array == [])
    }

    static func listedMediaID(_ fixture: DeliveryFixture) throws -> String? {
        let listed = try DeliveryFixture.tool(["assets", "list", "--data-dir", fixture.dataDirectory, "--json"]).output
        return try JSONParser.parse(Data(listed.utf8)).array?.first?.object?["mediaId"]?.string
    }

    @discardableResult
    static func add(_ fixture: DeliveryFixture, _ extra: [String] = []) throws -> KASToolHarness.Result {
        try DeliveryFixture.tool(["assets", "add", fixture.root + "/talk.tdf", "--path", "/talk.tdf", "--title", "Talk",
                                  "--data-dir", fixture.dataDirectory, "--public-url", fixture.kas.address] + extra)
    }
}
