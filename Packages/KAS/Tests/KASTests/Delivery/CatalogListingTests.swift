import Foundation
@testable import KAS
@testable import KASDomain
@testable import KASHTTP
import KASTesting
import MediaDRMJSON
import MediaDRMMedia
import Testing

/// Issue 33: `GET /media/v1/catalog` lists the titles a viewer may start, decided by the same
/// policy evaluation a playback start makes. The whole KAS in process, requests over curl.
@Suite struct CatalogListingTests {
    static let kasURL = "http://localhost:9"
    static let other = "https://example.com/attr/tier/value/platinum"

    /// A KAS with four titles: two the gold tier opens, one of the platinum tier, and a rental
    /// whose purchase window closed for the viewer's token.
    struct Catalog {
        let harness: KASTestHarness
        let open: [String]
        let platinum: String
        let rental: String
        let rentalToken: String

        init(playbackStartsPerMinute: Int = 60) throws {
            harness = try KASTestHarness(configure: {
                $0.acceptedKASURLs = [CatalogListingTests.kasURL]
                $0.rateLimits.playbackStartsPerMinute = playbackStartsPerMinute
            })
            let first = try harness.catalogue(nil, kasURL: CatalogListingTests.kasURL, title: "A talk")
            let second = try harness.catalogue(nil, kasURL: CatalogListingTests.kasURL, title: "B talk")
            var premium = try TestPackage.audioVideo()
            premium.dataAttributes = [CatalogListingTests.other]
            platinum = try harness.catalogue(premium, kasURL: CatalogListingTests.kasURL, title: "C premium").uuid
            rental = try harness.catalogue(MediaRules(rentalPurchaseWindowSeconds: 3600), kasURL: CatalogListingTests.kasURL,
                                           title: "D rental").uuid
            open = [first.uuid, second.uuid]
            rentalToken = try harness.token(sub: "renter", entitlements: [MediaFixture.attribute],
                                            rentals: [rental: Int64(Date().timeIntervalSince1970) - 7200])
        }

        func list(_ token: String?, query: String = "") throws -> (CurlResult, JSONObject?) {
            let result = try harness.get("/media/v1/catalog" + query, token: token)
            return (result, (try? JSONParser.parse(result.body))?.object)
        }
    }

    static func ids(_ page: JSONObject?) -> [String] {
        page?["titles"]?.array?.compactMap { $0.object?["assetId"]?.string } ?? []
    }

    @Test func aViewerSeesOnlyTheTitlesAPlaybackStartWouldAllow() throws {
        let catalog = try Catalog()
        defer { catalog.harness.stop() }
        let gold = try catalog.harness.token(sub: "gold", entitlements: [MediaFixture.attribute])
        let (result, page) = try catalog.list(gold)
        #expect(result.status == 200, "\(result.text)")
        // The rental is not bought by this token, so it is not listed either.
        #expect(Self.ids(page) == catalog.open)
        #expect(page?["next"] == nil)
        #expect(result.header("Cache-Control") == "private, no-store")
        let first = try #require(page?["titles"]?.array?.first?.object)
        #expect(first["title"]?.string == "A talk")
        #expect(first["duration"]?.int64 == 4)
        #expect(first["profile"]?.string == "fps-v2")

        // Every title left out is one a playback start refuses, with the reason the start gives.
        for (asset, reason) in [(catalog.platinum, "not_entitled"), (catalog.rental, "rental_not_purchased")] {
            let start = try catalog.harness.post("/media/v1/playback", token: gold,
                                                 json: [("assetId", .string(asset)), ("drmSystem", .string("tdf"))])
            #expect(start.status == 403, "\(start.text)")
            #expect((try JSONParser.parse(start.body)).object?["reason"]?.string == reason)
        }
        let platinum = try catalog.harness.token(sub: "platinum", entitlements: [Self.other])
        #expect(Self.ids(try catalog.list(platinum).1) == [catalog.platinum])
        let none = try catalog.harness.token(sub: "nobody")
        #expect(Self.ids(try catalog.list(none).1) == [])
    }

    @Test func aRentalIsListedWhileItsWindowIsOpenAndNotOnceItClosed() throws {
        let catalog = try Catalog()
        defer { catalog.harness.stop() }
        let bought = try catalog.harness.token(sub: "buyer", entitlements: [MediaFixture.attribute],
                                               rentals: [catalog.rental: Int64(Date().timeIntervalSince1970) - 60])
        #expect(Self.ids(try catalog.list(bought).1) == catalog.open + [catalog.rental])
        #expect(Self.ids(try catalog.list(catalog.rentalToken).1) == catalog.open)
    }

    @Test func pagesFollowNextToTheEnd() throws {
        let catalog = try Catalog()
        defer { catalog.harness.stop() }
        let gold = try catalog.harness.token(sub: "pager", entitlements: [MediaFixture.attribute])
        let (_, first) = try catalog.list(gold, query: "?limit=1")
        #expect(Self.ids(first) == [catalog.open[0]])
        let next = try #require(first?["next"]?.string)
        let (_, second) = try catalog.list(gold, query: "?limit=1&after=\(next)")
        #expect(Self.ids(second) == [catalog.open[1]])
        // The titles after the second are not this viewer's: no further page.
        #expect(second?["next"] == nil)
    }

    @Test(arguments: ["?limit=0", "?limit=101", "?limit=ten", "?limit=-1", "?after=5f0c3a52-7a7e-4c1e-9d3b-2b1f0e9a8c11"])
    func aBadQueryIsRefusedWithWhatToDo(_ query: String) throws {
        let catalog = try Catalog()
        defer { catalog.harness.stop() }
        let gold = try catalog.harness.token(sub: "query", entitlements: [MediaFixture.attribute])
        let (result, _) = try catalog.list(gold, query: query)
        #expect(result.status == 400, "\(result.text)")
        #expect(result.text.contains(query.contains("after") ? "first page" : "1 to 100"), "\(result.text)")
    }

    @Test func withoutABearerTokenTheListIsRefused() throws {
        let catalog = try Catalog()
        defer { catalog.harness.stop() }
        let (result, page) = try catalog.list(nil)
        #expect(result.status == 401)
        #expect(Self.ids(page) == [])
    }

    @Test func theListIsRateLimitedPerViewerApartFromPlaybackStarts() throws {
        let catalog = try Catalog(playbackStartsPerMinute: 2)
        defer { catalog.harness.stop() }
        let gold = try catalog.harness.token(sub: "browser", entitlements: [MediaFixture.attribute])
        #expect(try catalog.list(gold).0.status == 200)
        #expect(try catalog.list(gold).0.status == 200)
        let limited = try catalog.list(gold).0
        #expect(limited.status == 429)
        #expect(Int(limited.header("Retry-After") ?? "") ?? 0 > 0)
        // Another viewer's budget is its own, and browsing spent none of this viewer's starts.
        let other = try catalog.harness.token(sub: "other", entitlements: [MediaFixture.attribute])
        #expect(try catalog.list(other).0.status == 200)
        let start = try catalog.harness.post("/media/v1/playback", token: gold,
                                             json: [("assetId", .string(catalog.open[0])), ("drmSystem", .string("tdf"))])
        #expect(start.status == 200, "\(start.text)")
    }
}
