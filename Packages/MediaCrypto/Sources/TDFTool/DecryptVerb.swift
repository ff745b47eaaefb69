import Foundation
import MediaDRMTDF
import MediaDRMToolSupport

enum DecryptVerb {
    static let verb = ToolVerb(
        "decrypt",
        summary: "Decrypt a Standard TDF offline with the KAS private key.",
        discussion: """
            For the holder of the KAS private key. The payload key is unwrapped, the policy binding, \
            the root signature and every segment are verified, and only then does the output appear.
            """,
        options: [
            .single("output", short: "o", valueName: "file", help: "Where to write the plaintext.", required: true),
            .single("kas-private-key", valueName: "pem", help: "KAS private key: RSA or P-256, PEM file.",
                    required: true),
            .quiet,
        ],
        arguments: [ToolArgument("file", help: "The TDF to decrypt.")],
        action: run)

    static func run(_ arguments: ParsedArguments, _ console: Console) throws {
        let input = try arguments.requiredArgument("file")
        let output = try arguments.requiredValue("output")
        let privateKey = try KeyInput.privateKey(try arguments.requiredValue("kas-private-key"))
        _ = try FileInput.checkReadable(input, role: "TDF")
        if FileInput.isSameFile(input, output) {
            throw ToolFailure("output '\(output)' is the input file; choose another name")
        }
        let reader: TDFArchiveReader
        do {
            reader = try TDFArchiveReader(url: URL(fileURLWithPath: input))
        } catch {
            throw ToolFailure.tdf(error, "cannot read TDF '\(input)'")
        }
        do {
            let key = try reader.payloadKey(unwrapWith: privateKey)
            try reader.decrypt(payloadKey: key, to: URL(fileURLWithPath: output))
        } catch {
            throw ToolFailure.tdf(error, "cannot decrypt '\(input)' to '\(output)'")
        }
        console.progress("decrypted '\(input)' (\(reader.plaintextSize) bytes) to '\(output)'")
    }
}
