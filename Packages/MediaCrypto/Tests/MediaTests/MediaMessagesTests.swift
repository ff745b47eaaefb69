import Foundation
import MediaDRMJSON
import MediaDRMMedia
import Testing

/// The media-protocol messages (docs/protocol.md) as the client writes and the KAS reads them.
@Suite struct MediaMessagesTests {
    @Test func sessionStartWritesOnlyItsMembers() throws {
        let start = MediaSessionStart(assetID: "0b9c3a4e-1f2d-4c5b-8a69-7e8d9f0a1b2c", protocol: .tdf, playbackID: "p1",
                                      component: "video", device: DeviceReport(securityLevel: .software, virtualMachine: false))
        guard case .object(let object) = start.jsonValue else { Issue.record("not an object"); return }
        #expect(Set(object.keys) == MediaSessionStart.members)
        #expect(JSONWriter.string(start.jsonValue).contains(#""protocol":"tdf""#))
        let device = try #require(object["device"])
        #expect(DeviceReport(json: device) == DeviceReport(securityLevel: .software, virtualMachine: false))
        #expect(DeviceReport(json: try JSONParser.parse(Data(#"{"securityLevel":"software","extra":1}"#.utf8))) == nil)
    }

    @Test func keyRequestCarriesExactlyOneDeliveryPath() {
        let manifest = Data("{}".utf8)
        for (delivery, member, other) in [(MediaKeyRequestBody.Delivery.clientPublicKey("PEM"), "clientPublicKey", "spcData"),
                                          (.spc(Data([1, 2, 3])), "spcData", "clientPublicKey")] {
            let body = MediaKeyRequestBody(assetID: "a", component: "audio", sessionID: "s", manifest: manifest, delivery: delivery)
            guard case .object(let object) = body.jsonValue else { Issue.record("not an object"); return }
            #expect(object[member] != nil && object[other] == nil)
            #expect(object["tdfManifest"] == .string("e30="))
            #expect(Set(object.keys).isSubset(of: MediaKeyRequestBody.members))
        }
    }

    @Test func sessionAnswerRoundTripsAndRefusesWhatIsNotAStartedSession() throws {
        let started = MediaSessionAnswer(sessionID: "s1", heartbeatSeconds: 60, expiresAt: 1_800_000_180)
        #expect(MediaSessionAnswer(json: started.jsonValue) == started)
        #expect(MediaSessionAnswer(json: try JSONParser.parse(Data(#"{"status":"started","sessionId":"s1"}"#.utf8)))
                == MediaSessionAnswer(sessionID: "s1", heartbeatSeconds: nil, expiresAt: nil))
        for text in [#"{"status":"ended","sessionId":"s1"}"#, #"{"status":"started"}"#, #"{"status":"started","sessionId":1}"#,
                     #"{"status":"started","sessionId":"s1","heartbeatSeconds":1.5}"#,
                     #"{"status":"started","sessionId":"s1","expiresAt":"soon"}"#] {
            #expect(MediaSessionAnswer(json: try JSONParser.parse(Data(text.utf8))) == nil, "\(text)")
        }
    }

    @Test func keyAnswerRoundTripsAndRefusesWhatIsNotASuccess() throws {
        let answer = MediaKeyAnswer(wrappedKey: Data([9, 8, 7]), sessionPublicKey: "PEM", leaseSeconds: 3600)
        #expect(MediaKeyAnswer(json: answer.jsonValue) == answer)
        for text in [#"{"status":"denied","wrappedKey":"CQgH"}"#, #"{"status":"success","wrappedKey":""}"#,
                     #"{"status":"success","wrappedKey":"not base64!"}"#, #"{"status":"success"}"#] {
            #expect(MediaKeyAnswer(json: try JSONParser.parse(Data(text.utf8))) == nil, "\(text)")
        }
        let noLease = try JSONParser.parse(Data(#"{"status":"success","wrappedKey":"CQgH","metadata":{"lease_seconds":"600"}}"#.utf8))
        #expect(MediaKeyAnswer(json: noLease)?.leaseSeconds == nil)
    }
}
