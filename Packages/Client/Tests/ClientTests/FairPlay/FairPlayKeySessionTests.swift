import Foundation
import Testing
@testable import Client

/// `FairPlayKeySession` driven by fakes that play AVFoundation's callbacks (and the key
/// service's answers) in every order the callbacks of several requests can interleave.
@Suite struct FairPlayKeySessionTests {
    static let asset = "0b9c3a4e-1f2d-4c5b-8a69-7e8d9f0a1b2c"
    static let sessions = ["video": "session-video", "audio": "session-audio"]
    static let manifest = Data(#"{"manifest":true}"#.utf8)
    static let certificate = Data("application-certificate".utf8)

    /// One key request's life as AVFoundation plays it: provided, its CKC answered by the key
    /// service, then AVFoundation's verdict on the CKC.
    struct Script {
        enum Verdict { case succeeds, failsInAVFoundation, refusedByKeyService }
        let name: String
        let component: String
        let renewal: Bool
        let verdict: Verdict

        var steps: [Step] {
            let first: [Step] = [.provide(name), .answer(name)]
            switch verdict {
            case .succeeds: return first + [.succeed(name)]
            case .failsInAVFoundation: return first + [.avFail(name)]
            case .refusedByKeyService: return first
            }
        }
    }

    enum Step: Equatable {
        case provide(String), answer(String), succeed(String), avFail(String)

        var name: String {
            switch self {
            case .provide(let n), .answer(let n), .succeed(let n), .avFail(let n): n
            }
        }
    }

    /// Every interleaving of the scripts' steps that keeps each script's own order.
    static func interleavings(_ sequences: [[Step]]) -> [[Step]] {
        if sequences.allSatisfy(\.isEmpty) { return [[]] }
        var result: [[Step]] = []
        for (index, sequence) in sequences.enumerated() where !sequence.isEmpty {
            var rest = sequences
            rest[index] = Array(sequence.dropFirst())
            for tail in interleavings(rest) { result.append([sequence[0]] + tail) }
        }
        return result
    }

    /// Plays one order and checks the reports after every step against the rules: nothing is
    /// reported before the step where the last initial request's CKC is accepted (then
    /// "delivered video,audio" once) or the first initial failure (then "failed" once); never
    /// both; renewal steps never report.
    func play(_ scripts: [Script], order: [Step]) async {
        let gate = CKCGate()
        let refused = Set(scripts.filter { $0.verdict == .refusedByKeyService }.map(\.name))
        let recorder = ReportRecorder()
        let session = FairPlayKeySession(source: GatedCKCSource(gate: gate, refused: refused), assetID: Self.asset,
                                         manifest: Self.manifest, sessionIDs: Self.sessions, certificate: Self.certificate,
                                         delegate: recorder)
        let byName = Dictionary(uniqueKeysWithValues: scripts.map { ($0.name, $0) })
        let requests = scripts.reduce(into: [String: FakeKeyRequest]()) {
            $0[$1.name] = FakeKeyRequest(name: $1.name, keyIdentifier: "skd://\(Self.asset)/\($1.component)")
        }
        var provided: [String: Task<Void, Never>] = [:]
        var expected: [String] = []
        var accepted: Set<String> = []
        let initialComponents = Set(scripts.filter { !$0.renewal }.map(\.component))
        let description = order.map { "\($0)" }.joined(separator: " ")

        for step in order {
            guard let script = byName[step.name], let request = requests[step.name] else { continue }
            switch step {
            case .provide:
                provided[step.name] = Task { await session.provide(request, renewal: script.renewal) }
            case .answer:
                await gate.release(step.name)
                await provided[step.name]?.value
                if script.verdict == .refusedByKeyService {
                    #expect(request.responses == [.failure(PlaybackError(.denied, ""))], "\(description)")
                    if !script.renewal, expected.isEmpty { expected = ["failed denied"] }
                } else {
                    #expect(request.responses == [.ckc(Data("ckc-\(step.name)".utf8))], "\(description)")
                }
            case .succeed:
                session.succeeded(request)
                if !script.renewal {
                    accepted.insert(script.component)
                    if accepted == initialComponents, expected.isEmpty { expected = ["delivered video,audio"] }
                }
            case .avFail:
                session.failed(request)
                if !script.renewal, expected.isEmpty { expected = ["failed media"] }
            }
            #expect(recorder.reports == expected, "after \(step) in \(description)")
        }
    }

    func playEveryOrder(_ scripts: [Script]) async -> Int {
        let orders = Self.interleavings(scripts.map(\.steps))
        for order in orders { await play(scripts, order: order) }
        return orders.count
    }

    @Test func deliveryIsReportedOnlyAfterEveryComponentsSuccessCallback() async {
        let count = await playEveryOrder([
            Script(name: "v", component: "video", renewal: false, verdict: .succeeds),
            Script(name: "a", component: "audio", renewal: false, verdict: .succeeds),
        ])
        #expect(count == 20)
    }

    @Test func anAVFoundationFailureIsReportedOnceAndNeverFollowedByDelivery() async {
        let count = await playEveryOrder([
            Script(name: "v", component: "video", renewal: false, verdict: .succeeds),
            Script(name: "a", component: "audio", renewal: false, verdict: .failsInAVFoundation),
        ])
        #expect(count == 20)
        let both = await playEveryOrder([
            Script(name: "v", component: "video", renewal: false, verdict: .failsInAVFoundation),
            Script(name: "a", component: "audio", renewal: false, verdict: .failsInAVFoundation),
        ])
        #expect(both == 20)
    }

    @Test func aKeyServiceRefusalIsAnsweredToTheRequestAndReportedOnce() async {
        let count = await playEveryOrder([
            Script(name: "v", component: "video", renewal: false, verdict: .succeeds),
            Script(name: "a", component: "audio", renewal: false, verdict: .refusedByKeyService),
        ])
        #expect(count == 10)
    }

    @Test func renewalsAreSilentWhateverTheirOutcomeAndOrder() async {
        for verdict in [Script.Verdict.succeeds, .failsInAVFoundation, .refusedByKeyService] {
            let count = await playEveryOrder([
                Script(name: "v", component: "video", renewal: false, verdict: .succeeds),
                Script(name: "a", component: "audio", renewal: false, verdict: .succeeds),
                Script(name: "v2", component: "video", renewal: true, verdict: verdict),
            ])
            #expect(count == (verdict == .refusedByKeyService ? 560 : 1680))
        }
    }

    /// A cmaf package keyed per resolution class: `skd://<asset>/video-hd` asks for the HD
    /// component's key under its own media session.
    @Test func aVideoClassKeyURINamesItsComponent() async throws {
        let gate = CKCGate()
        let session = FairPlayKeySession(source: GatedCKCSource(gate: gate, refused: []), assetID: Self.asset, manifest: Self.manifest,
                                         sessionIDs: ["video-sd": "session-sd", "video-hd": "session-hd", "audio": "session-audio"],
                                         certificate: Self.certificate, delegate: ReportRecorder())
        let hd = FakeKeyRequest(name: "h", keyIdentifier: "skd://\(Self.asset)/video-hd")
        await gate.release("h")
        await session.provide(hd, renewal: false)
        #expect(hd.spcRequests.first?.contentIdentifier == Data("\(Self.asset)/video-hd".utf8))
        let sent = await gate.sent
        #expect(sent.count == 1 && sent.first?.component == "video-hd" && sent.first?.sessionID == "session-hd")
        #expect(hd.responses == [.ckc(Data("ckc-h".utf8))])
    }

    @Test func theSPCAndTheCKCRequestCarryWhatTheRulesSay() async throws {
        let gate = CKCGate()
        let recorder = ReportRecorder()
        let session = FairPlayKeySession(source: GatedCKCSource(gate: gate, refused: []), assetID: Self.asset,
                                         manifest: Self.manifest, sessionIDs: Self.sessions, certificate: Self.certificate,
                                         delegate: recorder)
        #expect(session.components == ["video", "audio"])
        let audio = FakeKeyRequest(name: "a", keyIdentifier: "skd://\(Self.asset)/audio")
        await gate.release("a")
        await session.provide(audio, renewal: false)
        let spc = try #require(audio.spcRequests.first)
        #expect(audio.spcRequests.count == 1)
        #expect(spc.certificate == Self.certificate)
        #expect(spc.contentIdentifier == Data("\(Self.asset)/audio".utf8))
        let sent = await gate.sent
        #expect(sent.count == 1)
        #expect(sent.first?.component == "audio" && sent.first?.sessionID == "session-audio")
        #expect(sent.first?.manifest == Self.manifest && sent.first?.spc == Data("spc-a".utf8))
        #expect(audio.responses == [.ckc(Data("ckc-a".utf8))])
        #expect(recorder.reports.isEmpty)
    }

    @Test(arguments: ["skd://0b9c3a4e-1f2d-4c5b-8a69-7e8d9f0a1b2d/video",   // another asset
                      "skd://0B9C3A4E-1F2D-4C5B-8A69-7E8D9F0A1B2C/video",   // not canonical
                      "skd://0b9c3a4e-1f2d-4c5b-8a69-7e8d9f0a1b2c/subtitles", // no such component
                      "https://0b9c3a4e-1f2d-4c5b-8a69-7e8d9f0a1b2c/video"])
    func aRequestNamingNoComponentOfThisAssetIsRefusedWithoutAnSPC(_ uri: String) async {
        let gate = CKCGate()
        let recorder = ReportRecorder()
        let session = FairPlayKeySession(source: GatedCKCSource(gate: gate, refused: []), assetID: Self.asset,
                                         manifest: Self.manifest, sessionIDs: Self.sessions, certificate: Self.certificate,
                                         delegate: recorder)
        let renewal = FakeKeyRequest(name: "r", keyIdentifier: uri)
        await session.provide(renewal, renewal: true)
        #expect(renewal.responses == [.failure(PlaybackError(.invalidSource, ""))])
        #expect(recorder.reports.isEmpty)
        let initial = FakeKeyRequest(name: "i", keyIdentifier: uri)
        await session.provide(initial, renewal: false)
        #expect(initial.responses == [.failure(PlaybackError(.invalidSource, ""))])
        #expect(initial.spcRequests.isEmpty && renewal.spcRequests.isEmpty)
        #expect(recorder.reports == ["failed invalidSource"])
        #expect(await gate.sent.isEmpty)
    }
}
