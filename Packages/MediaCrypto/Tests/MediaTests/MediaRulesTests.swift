import Foundation
import MediaDRMJSON
import MediaDRMMedia
import Testing

@Suite struct MediaRulesTests {
    private func read(_ text: String) throws -> MediaRules {
        try MediaRules(json: try JSONParser.parse(Data(text.utf8)))
    }

    @Test func whatTheWriterWritesTheReaderReadsBack() throws {
        let rules = MediaRules(rentalPurchaseWindowSeconds: 2_592_000, rentalPlaybackWindowSeconds: 172_800,
                               maxConcurrentStreams: 2, allowedRegions: ["US", "CA"], blockedRegions: ["KP"],
                               hdcp: .type1, minSecurityLevel: .main, allowVirtualMachines: false)
        let text = JSONWriter.string(rules.jsonValue)
        #expect(text.contains(#""purchaseWindowSeconds":2592000"#) && text.contains(#""minSecurityLevel":"main""#))
        #expect(try read(text) == rules)
        #expect(try read(JSONWriter.string(MediaRules().jsonValue)) == MediaRules())
    }

    @Test func offlineMembersRoundTripAndDefault() throws {
        let rules = MediaRules(offline: true, offlineLicenseDurationSeconds: 604_800, offlinePlaybackWindowSeconds: 172_800,
                               maxOfflineDevices: 2)
        let text = JSONWriter.string(rules.jsonValue)
        #expect(text.contains(#""offline":true"#) && text.contains(#""offlineLicenseDuration":604800"#)
                && text.contains(#""offlinePlaybackWindow":172800"#) && text.contains(#""maxOfflineDevices":2"#))
        #expect(try read(text) == rules)
        #expect(rules.allowsOffline && rules.effectiveMaxOfflineDevices == 2)
        let bare = try read(#"{"v":1,"offline":true}"#)
        #expect(bare.effectiveOfflineLicenseDuration == MediaRules.defaultOfflineLicenseDuration)
        #expect(bare.effectiveMaxOfflineDevices == MediaRules.defaultMaxOfflineDevices)
        let refused = try read(#"{"v":1,"offline":false}"#)
        #expect(!MediaRules().allowsOffline && !refused.allowsOffline)
    }

    @Test func livePeriodRoundTrips() throws {
        let rules = MediaRules(maxConcurrentStreams: 2, livePeriod: 3, livePeriodStart: 1_767_225_600)
        let text = JSONWriter.string(rules.jsonValue)
        #expect(text.contains(#""livePeriod":3"#) && text.contains(#""livePeriodStart":1767225600"#))
        #expect(try read(text) == rules)
        #expect(!MediaRules(livePeriod: 0, livePeriodStart: 0).isEmpty)
        #expect(try read(#"{"v":1,"livePeriod":0,"livePeriodStart":0}"#).livePeriod == 0)
    }

    /// The period's length rides beside the period, from 1 s to a year; a segment packaged before
    /// it was written (no `livePeriodSeconds`) still reads.
    @Test func livePeriodSecondsRoundTrips() throws {
        let rules = MediaRules(livePeriod: 3, livePeriodStart: 1_767_225_600, livePeriodSeconds: 600)
        let text = JSONWriter.string(rules.jsonValue)
        #expect(text.contains(#""livePeriodSeconds":600"#))
        let back = try read(text)
        #expect(back == rules && back.livePeriodSeconds == 600)
        #expect(try read(#"{"v":1,"livePeriod":0,"livePeriodStart":0}"#).livePeriodSeconds == nil)
        #expect(try read(#"{"v":1,"livePeriod":0,"livePeriodStart":0,"livePeriodSeconds":1}"#).livePeriodSeconds == 1)
        #expect(try read(#"{"v":1,"livePeriod":0,"livePeriodStart":0,"livePeriodSeconds":31536000}"#).livePeriodSeconds
                == MediaRules.maxLivePeriodSeconds)
        #expect(throws: MediaRulesError.self) { try MediaRules(livePeriodSeconds: 600).validate() }
    }

    @Test func refusalsNameTheMember() {
        let cases: [(String, MediaRules.Member?)] = [
            (#"{"v":2}"#, .version),
            (#"{"v":1,"extra":true}"#, nil),
            (#"{"v":1,"maxConcurrentStreams":1001}"#, .maxConcurrentStreams),
            (#"{"v":1,"maxConcurrentStreams":1.0}"#, .maxConcurrentStreams),
            (#"{"v":1,"rental":{"purchaseWindowSeconds":0}}"#, .rentalPurchaseWindow),
            (#"{"v":1,"allowedRegions":["us"]}"#, .allowedRegions),
            (#"{"v":1,"allowedRegions":["US"],"blockedRegions":["US"]}"#, .blockedRegions),
            (#"{"v":1,"hdcp":"type2"}"#, .hdcp),
            (#"{"v":1,"offline":"yes"}"#, .offline),
            (#"{"v":1,"offline":true,"offlineLicenseDuration":0}"#, .offlineLicenseDuration),
            (#"{"v":1,"offline":true,"offlinePlaybackWindow":-5}"#, .offlinePlaybackWindow),
            (#"{"v":1,"offline":true,"maxOfflineDevices":0}"#, .maxOfflineDevices),
            (#"{"v":1,"offline":true,"maxOfflineDevices":1001}"#, .maxOfflineDevices),
            (#"{"v":1,"maxOfflineDevices":2}"#, .offline),
            (#"{"v":1,"offline":false,"offlineLicenseDuration":60}"#, .offline),
            (#"{"v":1,"livePeriod":1}"#, .livePeriodStart),
            (#"{"v":1,"livePeriodStart":1}"#, .livePeriod),
            (#"{"v":1,"livePeriod":-1,"livePeriodStart":1}"#, .livePeriod),
            (#"{"v":1,"livePeriod":1,"livePeriodStart":1.5}"#, .livePeriodStart),
            (#"{"v":1,"livePeriod":{"n":1},"livePeriodStart":1}"#, .livePeriod),
            (#"{"v":1,"livePeriodSeconds":600}"#, .livePeriodSeconds),
            (#"{"v":1,"livePeriod":1,"livePeriodStart":1,"livePeriodSeconds":0}"#, .livePeriodSeconds),
            (#"{"v":1,"livePeriod":1,"livePeriodStart":1,"livePeriodSeconds":-600}"#, .livePeriodSeconds),
            (#"{"v":1,"livePeriod":1,"livePeriodStart":1,"livePeriodSeconds":31536001}"#, .livePeriodSeconds),
            (#"{"v":1,"livePeriod":1,"livePeriodStart":1,"livePeriodSeconds":600.5}"#, .livePeriodSeconds),
            (#"{"v":1,"livePeriod":1,"livePeriodStart":1,"livePeriodSeconds":"600"}"#, .livePeriodSeconds),
            (#"{"v":1,"livePeriod":1,"livePeriodStart":1,"livePeriodSeconds":9223372036854775808}"#, .livePeriodSeconds),
        ]
        for (text, member) in cases {
            #expect(throws: MediaRulesError.self) { _ = try read(text) }
            do { _ = try read(text) } catch let error as MediaRulesError {
                #expect(error.member == member, "\(text)")
                #expect(error.reason.hasPrefix(MediaRules.policyKey))
            } catch {
                Issue.record("unexpected \(error)")
            }
        }
    }

    @Test func regionListsAsTyped() {
        #expect(MediaRules.regions("us, CA") == ["US", "CA"])
        #expect(MediaRules.isRegionCode("US") && !MediaRules.isRegionCode("USA") && !MediaRules.isRegionCode("us"))
    }
}

@Suite struct MediaSchemaTests {
    @Test func canonicalUUID() {
        #expect(CanonicalUUID.isCanonical("0b9c3a4e-1f2d-4c5b-8a69-7e8d9f0a1b2c"))
        for text in ["0B9C3A4E-1F2D-4C5B-8A69-7E8D9F0A1B2C", "0b9c3a4e1f2d4c5b8a697e8d9f0a1b2c", "0b9c3a4e-1f2d-4c5b-8a69-7e8d9f0a1b2c0",
                     "0b9c3a4e-1f2d-4c5b-8a69-7e8d9f0a1b2", "0b9c3a4e-1f2d-4c5b-8a69_7e8d9f0a1b2c", ""] {
            #expect(!CanonicalUUID.isCanonical(text), "\(text)")
        }
    }

    @Test func skdKeyURINamesOneComponent() {
        let uuid = "0b9c3a4e-1f2d-4c5b-8a69-7e8d9f0a1b2c"
        #expect(SKDKeyURI("skd://\(uuid)/audio") == SKDKeyURI(policyUUID: uuid, component: .audio))
        #expect(SKDKeyURI(policyUUID: uuid, component: .video).text == "skd://\(uuid)/video")
        for text in ["skd://\(uuid)/subtitles", "skd://\(uuid.uppercased())/video", "https://\(uuid)/video", "skd://\(uuid)/video/1"] {
            #expect(SKDKeyURI(text) == nil, "\(text)")
        }
        // A cmaf package keyed per resolution class: its video classes are served keys, not fps-v2's.
        #expect(SKDKeyURI("skd://\(uuid)/video-hd") == nil)
        let hd = SKDKeyURI(servedKey: "skd://\(uuid)/video-hd")
        #expect(hd?.component == .video && hd?.componentID == "video-hd" && hd?.text == "skd://\(uuid)/video-hd")
        #expect(SKDKeyURI(servedKey: "skd://\(uuid)/audio") == SKDKeyURI(policyUUID: uuid, component: .audio))
        #expect(SKDKeyURI(policyUUID: uuid, componentID: "video-uhd2")?.text == "skd://\(uuid)/video-uhd2")
        for text in ["skd://\(uuid)/video-4k", "skd://\(uuid)/subtitles", "skd://\(uuid.uppercased())/video-sd", "skd://\(uuid)/video-sd/1"] {
            #expect(SKDKeyURI(servedKey: text) == nil, "\(text)")
        }
    }

    /// The `kid` and `iv` query items an fps-v2 view writes (Cloud Video Kit's shape): read
    /// strictly by `parse(servedKey:)`, never by the fps-v2 grammar's `init?(_:)`.
    @Test func skdKeyURIKeyItems() throws {
        let uuid = "0b9c3a4e-1f2d-4c5b-8a69-7e8d9f0a1b2c"
        let kid = Data((0..<16).map { UInt8($0) }), iv = Data((0..<16).map { UInt8(0xF0 | $0) })
        let kidHex = "000102030405060708090a0b0c0d0e0f", ivHex = "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff"
        let named = try #require(SKDKeyURI(policyUUID: uuid, component: .video).withKey(id: kid, iv: iv))
        #expect(named.text == "skd://\(uuid)/video?kid=\(kidHex)&iv=\(ivHex)")
        #expect(named.contentID == "\(uuid)/video?kid=\(kidHex)&iv=\(ivHex)")
        let read = try SKDKeyURI.parse(servedKey: named.text)
        #expect(read == named && read.keyID == kid && read.iv == iv && read.componentID == "video")
        // Either order, either case; a video class too.
        #expect(try SKDKeyURI.parse(servedKey: "skd://\(uuid)/video-hd?iv=\(ivHex.uppercased())&kid=\(kidHex)").keyID == kid)
        #expect(SKDKeyURI(named.text) == nil, "the fps-v2 grammar takes no query")
        #expect(SKDKeyURI(policyUUID: uuid, component: .audio).withKey(id: kid.dropLast(), iv: iv) == nil)

        let refused: [(String, SKDKeyURIError)] = [
            ("skd://\(uuid)/video?", .malformedQuery),
            ("skd://\(uuid)/video?kid=\(kidHex)", .malformedQuery),
            ("skd://\(uuid)/video?kid=\(kidHex)&iv=\(ivHex)&x=1", .malformedQuery),
            ("skd://\(uuid)/video?kid=\(kidHex)&kid=\(kidHex)", .malformedQuery),
            ("skd://\(uuid)/video?kid=\(kidHex)&IV=\(ivHex)", .malformedQuery),
            ("skd://\(uuid)/video?kid&iv=\(ivHex)", .malformedQuery),
            ("skd://\(uuid)/video?kid=\(kidHex.dropLast())&iv=\(ivHex)", .malformedKeyID),
            ("skd://\(uuid)/video?kid=\(kidHex)00&iv=\(ivHex)", .malformedKeyID),
            ("skd://\(uuid)/video?kid=0x\(kidHex.dropFirst(2))&iv=\(ivHex)", .malformedKeyID),
            ("skd://\(uuid)/video?kid=\(kidHex)&iv=\(ivHex.dropLast(2))zz", .malformedIV),
            ("skd://\(uuid)/video?kid=\(kidHex)&iv=", .malformedIV),
            ("skd://\(uuid)/subtitles?kid=\(kidHex)&iv=\(ivHex)", .unknownComponent),
            ("skd://\(uuid.uppercased())/video?kid=\(kidHex)&iv=\(ivHex)", .malformedPath),
            ("skd://\(uuid)?kid=\(kidHex)&iv=\(ivHex)", .malformedPath),
            ("https://\(uuid)/video", .notSKD),
            ("skd://\(uuid)/video?kid=" + String(repeating: "0", count: SKDKeyURI.maximumLength), .tooLong),
        ]
        for (text, error) in refused {
            #expect(throws: error, "\(text.prefix(90))") { _ = try SKDKeyURI.parse(servedKey: text) }
            #expect(SKDKeyURI(servedKey: text) == nil)
        }
        // Every truncation of a valid URI is read or refused, never a crash; only whole items read.
        for end in 0..<named.text.utf8.count {
            let cut = String(decoding: named.text.utf8.prefix(end), as: UTF8.self)
            if let uri = SKDKeyURI(servedKey: cut) { #expect(uri.keyID == nil && cut == "skd://\(uuid)/video") }
        }
    }

    @Test func componentListVersion2Shape() throws {
        let binding = Data(count: 32).base64EncodedString()
        func list(_ text: String) throws -> MediaComponentList { try MediaComponentList(version2: try JSONParser.parse(Data(text.utf8))) }
        let both = try list(#"[{"id":"video","kind":"video","keyBinding":"\#(binding)"},{"id":"audio","kind":"audio","keyBinding":"\#(binding)"}]"#)
        #expect(both.kinds == [.video, .audio])
        #expect(throws: Never.self) { try both.checkKeyBindingForms() }
        #expect(throws: MediaComponentListError(.malformed, "arkavo:components[0] must be {id:\"video\", kind:\"video\"}")) {
            _ = try list(#"[{"id":"audio","kind":"audio","keyBinding":"\#(binding)"}]"#)
        }
        #expect(throws: MediaComponentListError.self) { _ = try list("[]") }
        #expect(throws: MediaComponentListError(.missing, "the policy has no arkavo:components")) { _ = try MediaComponentList(version2: nil) }
        let extra = #"[{"id":"video","kind":"video","keyBinding":"\#(binding)","lang":"en"}]"#
        #expect(throws: MediaComponentListError(.malformed, "arkavo:components[0] has members other than id, kind and keyBinding")) {
            _ = try list(extra)
        }
        #expect(try MediaComponentList(json: try JSONParser.parse(Data(extra.utf8))).entries.first?.additionalMembers["lang"] == .string("en"))
        let short = try list(#"[{"id":"video","kind":"video","keyBinding":"AAAA"}]"#)
        #expect(throws: MediaComponentListError.self) { try short.checkKeyBindingForms() }
    }
}
