import Foundation

/// What a live playback test sets up around `packager live`: the built `kas serve`, a viewer's
/// token entitled to `Publisher.policy()`, and a work directory (the origin's root) holding that
/// policy and the KAS public key; the stream goes to `work/live`.
struct LiveStreamWork {
    let kas: KASServe
    let token: String
    let work: String
    var directory: String { work + "/live" }
    var policyPath: String { work + "/policy.json" }
    var kasKeyPath: String { work + "/kas.pem" }

    init(_ label: String) throws {
        kas = try KASServe("\(label)-kas")
        token = try kas.token(subject: "\(label)-viewer", claims: #"{"entitlements":["\#(Publisher.premium)"]}"#)
        work = Scratch.directory("\(label)-origin")
        try Data(Publisher.policy().utf8).write(to: URL(fileURLWithPath: work + "/policy.json"))
        try Data(kas.publicKeyPEM.utf8).write(to: URL(fileURLWithPath: work + "/kas.pem"))
    }
}
