import Foundation
import MediaDRMTDF
import MediaDRMToolSupport

enum EncryptVerb {
    static let verb = ToolVerb(
        "encrypt",
        summary: "Encrypt a file into a Standard TDF for a KAS.",
        discussion: """
            The payload key is fresh for every file and is wrapped to the KAS public key: an RSA \
            key gives a 'wrapped' key access object (RSA-OAEP SHA-1), a P-256 key an 'ec-wrapped' one. \
            The plaintext is split into AES-256-GCM segments. The output appears only when complete.
            """,
        options: [
            .single("output", short: "o", valueName: "file", help: "Where to write the TDF.", required: true),
            .single("kas-url", valueName: "url", help: "KAS URL written into the key access object (http or https).",
                    required: true),
            .single("kas-public-key", valueName: "pem", help: "KAS public key: RSA 2048+ or P-256, PEM file.",
                    required: true),
            .single("kid", valueName: "kid", help: "Key id of the KAS key."),
            .single("policy", valueName: "json-file",
                    help: "Policy JSON ({uuid, body: {dataAttributes, dissem}}); a fresh uuid is added when missing."),
            .repeated("attribute", valueName: "fqn", help: "Attribute value FQN added to the policy's dataAttributes."),
            .single("segment-size", valueName: "bytes",
                    help: "Plaintext bytes per segment (default \(TDFArchive.defaultSegmentSize))."),
            .single("mime-type", valueName: "type", help: "MIME type of the plaintext (default \(TDFArchive.defaultMimeType))."),
            .quiet,
        ],
        arguments: [ToolArgument("file", help: "The file to encrypt.")],
        action: run)

    static func run(_ arguments: ParsedArguments, _ console: Console) throws {
        let input = try arguments.requiredArgument("file")
        let output = try arguments.requiredValue("output")
        let kasURL = try arguments.requiredValue("kas-url")
        try validateKASURL(kasURL)
        let segmentSize = try arguments.integer("segment-size", in: 1...TDFLimits.default.maxSegmentSize)
            ?? TDFArchive.defaultSegmentSize
        let mimeType = arguments.value("mime-type") ?? TDFArchive.defaultMimeType
        guard !mimeType.isEmpty, !mimeType.contains(where: { $0.isWhitespace || $0.isNewline }) else {
            throw UsageError("invalid value '\(mimeType)' for '--mime-type'")
        }

        let publicKey = try KeyInput.publicKey(try arguments.requiredValue("kas-public-key"))
        let policy = try PolicyInput.make(policyPath: arguments.value("policy"), attributes: arguments.values("attribute"))
        let size = try FileInput.checkReadable(input, role: "input")
        if FileInput.isSameFile(input, output) {
            throw ToolFailure("output '\(output)' is the input file; choose another name")
        }

        let options = TDFEncryptOptions(kasURL: kasURL, kasPublicKey: publicKey, kid: arguments.value("kid"),
                                        policy: policy, segmentSize: segmentSize, mimeType: mimeType)
        let manifest: TDFManifest
        do {
            manifest = try TDF.encrypt(input: URL(fileURLWithPath: input), output: URL(fileURLWithPath: output),
                                       options: options)
        } catch {
            throw ToolFailure.tdf(error, "cannot encrypt '\(input)' to '\(output)'")
        }
        let segments = manifest.encryptionInformation.integrityInformation.segments.count
        console.progress("encrypted '\(input)' (\(size) bytes, \(segments) segment\(segments == 1 ? "" : "s")) to '\(output)'")
    }

    /// An absolute http(s) URL with a host; anything else is a usage error.
    static func validateKASURL(_ text: String) throws(UsageError) {
        guard let components = URLComponents(string: text),
              let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = components.host, !host.isEmpty,
              !text.contains(where: { $0.isWhitespace }) else {
            throw UsageError("invalid value '\(text)' for '--kas-url': expected an http or https URL")
        }
    }
}
