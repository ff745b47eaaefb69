import Foundation
@testable import KAS
@testable import KASDomain
import KASTesting
import MediaDRMCrypto
import MediaDRMEncoding
import MediaDRMJSON
import Testing

/// A cmaf package keyed per resolution class (`packager package --key-per-resolution`: an SD and
/// an HD rendition) behind a real `kas serve` and nginx: `kas assets add` catalogs it (each
/// rendition's `tenc` KID checked against its class's key), the playback answer lists every key
/// id by component, and one ClearKey licence naming the SD and HD key ids answers both keys, each
/// the one the package wrapped to the KAS (docs/delivery.md#the-clearkey-licence-url).
extension DeliveryTests {
    @Suite(.serialized) struct ClearKeyPerResolution {
        @Test func licenceNamingBothVideoKeyIDsAnswersBothClassKeys() throws {
            let fixture = try DeliveryFixture(keyPerResolution: true)
            defer { fixture.stop() }
            let listed = try DeliveryFixture.tool(["assets", "list", "--data-dir", fixture.dataDirectory]).output
            #expect(listed.contains("\(fixture.assetID) cmaf 4s /talk/ Talk"), "\(listed)")

            let clearKey = ClearKey()
            let (answer, result) = try clearKey.start(fixture, token: try fixture.token("alice"))
            #expect(result.status == 200, "\(result.text)")
            let playback = try #require(answer)
            let keyIDs = try #require(playback["keyIds"]?.object)
            #expect(keyIDs.members.map(\.key).sorted() == ["audio", "video-hd", "video-sd"], "one member per component, no \"video\"")
            let sd = try #require(keyIDs["video-sd"]?.string), hd = try #require(keyIDs["video-hd"]?.string)
            #expect(sd != hd)
            let url = try #require(playback["licenseUrl"]?.string)

            let licence = try clearKey.licence(fixture, url, kids: [try ClearKey.b64url(hex: sd), try ClearKey.b64url(hex: hd)])
            #expect(licence.status == 200, "\(licence.text)")
            let keys = try #require(try JSONParser.parse(licence.body).object?["keys"]?.array).compactMap(\.object)
            #expect(keys.count == 2)
            // Each key is the one the package wrapped to this KAS for that class, unwrapped here
            // with the ring's private key through the key path's admission.
            let ring = try KeyRing.load(dataDirectory: fixture.dataDirectory)
            let admission = try #require(ManifestAdmission(acceptedKASURLs: [fixture.kas.address],
                                                           unwrapper: KeyRingMediaUnwrapper(KeyRingHolder(ring))))
            let admitted = try admission.admit(Array(try Data(contentsOf: URL(fileURLWithPath: fixture.root + "/talk/manifest.json"))))
            #expect(admitted.components.map(\.id) == ["video-sd", "video-hd", "audio"])
            var answered: [Data] = []
            for (key, (hex, component)) in zip(keys, [(sd, "video-sd"), (hd, "video-hd")]) {
                let kid = try ClearKey.b64url(hex: hex)
                #expect(key["kid"]?.string == kid, "\(component)")
                let k = try Base64URL.decode(try #require(key["k"]?.string))
                let expected = try #require(admitted.component(component)).key.withUnsafeBytes { Data($0) }
                #expect(k == expected, "\(component)")
                answered.append(k)
            }
            #expect(answered.count == 2 && answered[0] != answered[1])

            // A key id of the package's HD class alone gets the HD key only.
            let hdOnly = try clearKey.licence(fixture, url, kids: [try ClearKey.b64url(hex: hd)])
            #expect(hdOnly.status == 200, "\(hdOnly.text)")
            let hdKeys = try #require(try JSONParser.parse(hdOnly.body).object?["keys"]?.array)
            let hdKID = try ClearKey.b64url(hex: hd)
            #expect(hdKeys.count == 1 && hdKeys.first?.object?["kid"]?.string == hdKID)
        }
    }
}
