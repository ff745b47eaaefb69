import Client
import MediaDRMCrypto
import MediaDRMEncoding
import Foundation
import MediaDRMToolSupport

/// `player decrypt`: the cbcs decryptor on its own, as Bento4's mp4decrypt.
enum DecryptVerb {
    static let verb = ToolVerb(
        "decrypt",
        summary: "Decrypt a cbcs fMP4 track (init and segments) with known keys.",
        discussion: """
            For operators and for checking other packagers' output. The init segment is rewritten \
            to clear (encv/enca back to their original format, sinf and pssh removed) and every \
            segment's samples are decrypted from senc and tenc, one segment at a time; the output \
            is one clear fragmented MP4. Each protected track needs a --key whose KID equals its \
            tenc default_KID (fps-v2 packages use the all-zero KID or their own). cbcs has no \
            integrity check: a wrong KEY for the right KID yields garbage samples, not an error. \
            Clear media goes to -o FILE or to a redirected stdout, never to a terminal.
            """,
        options: [
            .repeated("key", valueName: "kid:key", help: "KID and KEY, 32 hex digits each.", required: true),
            .single("output", short: "o", valueName: "file", help: "Write the clear fMP4 here (default: stdout)."),
            .quiet,
        ],
        arguments: [
            ToolArgument("init", help: "The encrypted init segment."),
            ToolArgument("segment", help: "The encrypted media segments, in order.", variadic: true),
        ],
        action: run)

    static let maximumInitSize = 16 << 20

    static func run(_ arguments: ParsedArguments, _ console: Console) throws {
        let initPath = try arguments.requiredArgument("init")
        let segments = arguments.arguments("segment")
        guard !segments.isEmpty else { throw UsageError("missing argument <segment>") }
        let keysByID = try ContentKeyArgument.parseAll(arguments.values("key"))
        let outputPath = arguments.value("output")
        if let outputPath {
            for input in [initPath] + segments where FileInput.isSameFile(input, outputPath) {
                throw ToolFailure("output '\(outputPath)' is an input file; choose another name")
            }
        }
        for path in segments { _ = try FileInput.checkReadable(path, role: "segment") }
        // Before any work: clear media never goes to a terminal. A file output left uncommitted
        // is removed when the destination goes away.
        let destination = try ClearMediaDestination(path: outputPath)
        let initBytes = [UInt8](try FileInput.read(initPath, role: "init segment", maxBytes: maximumInitSize))
        let clearInit: ClearInitSegment
        let decryptor: FragmentDecryptor
        do throws(MediaError) {
            clearInit = try InitSegmentRewriter.rewrite(initBytes)
            decryptor = try FragmentDecryptor(initSegment: clearInit,
                                              keys: try trackKeys(clearInit, keysByID, console: console))
        } catch {
            throw ToolFailure("init segment '\(initPath)': \(error.reason)")
        }
        do {
            try destination.write(clearInit.serializedBytes())
            // One buffer for every segment: the reader copies each mdat out of it, so it is
            // free again when the next segment is read.
            var bytes: [UInt8] = []
            for path in segments {
                try FileInput.read(path, role: "segment", maxBytes: 1 << 30, into: &bytes)
                do throws(MediaError) {
                    try decryptor.writeClearSegment(&bytes, to: destination)
                } catch {
                    throw ToolFailure("segment '\(path)': \(error.reason)")
                }
            }
            try destination.finish()
        } catch {
            destination.abandon()
            if let media = error as? MediaError { throw ToolFailure(media.reason) }
            throw error
        }
        let target = outputPath.map { "'\($0)'" } ?? "stdout"
        console.progress("decrypted \(segments.count) segments (\(destination.bytesWritten) bytes) to \(target)")
    }

    /// The key of each protected track, matched by its `tenc` KID.
    static func trackKeys(_ clearInit: ClearInitSegment, _ keysByID: [[UInt8]: SecretKey],
                          console: Console) throws(MediaError) -> [UInt32: SecretKey] {
        var keys: [UInt32: SecretKey] = [:]
        var used = Set<[UInt8]>()
        for (trackID, protection) in clearInit.protections.sorted(by: { $0.key < $1.key }) {
            guard let key = keysByID[protection.keyID] else {
                throw MediaError(.keyMismatch,
                                 "no --key for track \(trackID), whose tenc KID is \(Hex.encode(protection.keyID))")
            }
            keys[trackID] = key
            used.insert(protection.keyID)
        }
        for kid in keysByID.keys where !used.contains(kid) {
            console.warning("--key for KID \(Hex.encode(kid)) matches no track")
        }
        return keys
    }

    static func readSegment(_ path: String) throws -> [UInt8] {
        [UInt8](try FileInput.read(path, role: "segment", maxBytes: 1 << 30))
    }
}
