import MediaDRMCrypto
import Foundation
import MediaDRMZIP

/// Standard TDF (OpenTDF 4.3.0) in one call each way. See `TDFWriter` and `TDFArchiveReader`
/// for the streaming and step-by-step forms.
public enum TDF {
    /// Encrypts the file at `input` into a Standard TDF at `output`. The archive is streamed to a
    /// temporary file beside `output` and moved into place when complete.
    @discardableResult
    public static func encrypt(input: URL, output: URL, options: TDFEncryptOptions,
                               limits: TDFLimits = .default) throws(TDFError) -> TDFManifest {
        let writer = try TDFWriter(options: options, limits: limits)
        let handle: FileHandle
        let size: Int64
        do {
            handle = try FileHandle(forReadingFrom: input)
            let attributes = try FileManager.default.attributesOfItem(atPath: input.path)
            guard let bytes = attributes[.size] as? NSNumber else { throw TDFError(.io, "") }
            size = bytes.int64Value
        } catch {
            throw TDFError(.io, "the input file could not be opened")
        }
        defer { try? handle.close() }
        let file = try zipCall { () throws(ZIPError) in try ZIPAtomicFile(path: output.path) }
        do {
            let manifest = try writer.write(plaintextSize: size, read: { count in
                try handle.read(upToCount: count) ?? Data()
            }, to: file.sink)
            try zipCall { () throws(ZIPError) in try file.commit() }
            return manifest
        } catch {
            file.discard()
            throw error
        }
    }

    /// Encrypts bytes in memory into a Standard TDF archive (for example one media segment).
    public static func encrypt(_ plaintext: some DataProtocol, options: TDFEncryptOptions,
                               limits: TDFLimits = .default) throws(TDFError) -> Data {
        let writer = try TDFWriter(options: options, limits: limits)
        let bytes = Data(plaintext)
        var position = 0
        let sink = ZIPMemorySink()
        try writer.write(plaintextSize: Int64(bytes.count), read: { count in
            let end = min(bytes.count, position + count)
            defer { position = end }
            return bytes.subdata(in: position..<end)
        }, to: sink)
        return sink.data
    }

    /// Offline decrypt by the KAS key holder: unwraps the payload key with `privateKey`, verifies
    /// the policy binding, the root signature and every segment, and writes `output` only then.
    public static func decrypt(input: URL, output: URL, unwrapWith privateKey: KASPrivateKey,
                               limits: TDFLimits = .default) throws(TDFError) {
        let reader = try TDFArchiveReader(url: input, limits: limits)
        let key = try reader.payloadKey(unwrapWith: privateKey)
        try reader.decrypt(payloadKey: key, to: output)
    }

    /// In-memory form of `decrypt(input:output:unwrapWith:)`.
    public static func decrypt(_ archive: some DataProtocol, unwrapWith privateKey: KASPrivateKey,
                               limits: TDFLimits = .default) throws(TDFError) -> Data {
        let reader = try TDFArchiveReader(data: archive, limits: limits)
        return try reader.decrypt(payloadKey: reader.payloadKey(unwrapWith: privateKey))
    }
}
