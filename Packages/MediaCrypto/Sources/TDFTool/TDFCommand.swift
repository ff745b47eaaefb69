import MediaDRMToolSupport

/// `tdf`: Standard TDF (OpenTDF 4.3.0) files without a server. Encrypt to a KAS public key,
/// decrypt offline as the KAS key holder, and inspect a manifest without any key.
enum TDFCommand {
    static let version = "0.1.0"

    static let tool = Tool(
        name: "tdf",
        version: version,
        summary: "Encrypt, decrypt and inspect Standard TDF (OpenTDF 4.3.0) files.",
        verbs: [EncryptVerb.verb, DecryptVerb.verb, InspectVerb.verb])
}
