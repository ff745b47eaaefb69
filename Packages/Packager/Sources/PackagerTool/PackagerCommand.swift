import MediaDRMToolSupport

/// `packager`: MP4 (H.264 + AAC) to protected HLS packages.
enum PackagerCommand {
    static let version = "0.1.0"

    static let tool = Tool(
        name: "packager",
        version: version,
        summary: "Package MP4 (H.264 + AAC) as protected HLS (fps-v2) and inspect packages.",
        verbs: [PackageVerb.verb, LiveVerb.verb, InspectVerb.verb])
}
