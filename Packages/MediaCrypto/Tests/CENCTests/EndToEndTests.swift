import MediaDRMCrypto
import Foundation
import MediaDRMMP4
import Testing
@testable import MediaDRMCENC

/// Encrypts ffmpeg's clear fragmented MP4 into a `cbcs` one (encv/sinf/tenc 1:9 with a constant
/// IV, senc with subsamples, saiz, saio) with this module's subsample maps and cipher, then asks
/// ffmpeg to decrypt it: its packets and decoded frames must equal the clear file's.
@Suite("cbcs end to end with ffmpeg")
struct EndToEndTests {
    static let keyBytes: [UInt8] = (0 ..< 16).map { UInt8(0x10 + $0 * 3) }
    static let iv: [UInt8] = (0 ..< 16).map { UInt8(0xF0 - $0) }

    struct Fragment {
        var moof: MovieFragmentBox
        var samples: [[UInt8]]
    }

    /// ftyp, moov and the fragments (moof with the samples of its one-track mdat).
    static func readFragmented(_ bytes: [UInt8]) throws -> (head: [any MP4Box], moov: MovieBox, fragments: [Fragment]) {
        let boxes = try BoxParser.parse(bytes)
        var head: [any MP4Box] = []
        var moov: MovieBox?
        var fragments: [Fragment] = []
        var index = 0
        while index < boxes.count {
            let box = boxes[index]
            if let movie = box as? MovieBox {
                moov = movie
            } else if let moof = box as? MovieFragmentBox {
                let mdat = try #require(boxes[index + 1] as? MediaDataBox)
                let payloadStart = Int(try #require(mdat.payloadOffset))
                let traf = try #require(moof.trackFragments.first)
                let tfhd = try #require(traf.trackFragmentHeader)
                let trun = try #require(traf.trackRuns.first)
                var offset = payloadStart
                var samples: [[UInt8]] = []
                for entry in trun.samples {
                    let size = Int(try #require(entry.sampleSize ?? tfhd.defaultSampleSize))
                    samples.append(Array(bytes[offset ..< offset + size]))
                    offset += size
                }
                #expect(offset == payloadStart + Int(mdat.payloadSize))
                fragments.append(Fragment(moof: moof, samples: samples))
                index += 1
            } else if moov == nil {
                head.append(box)
            }
            index += 1
        }
        return (head, try #require(moov), fragments)
    }

    static func sampleEntry(of moov: MovieBox) throws -> VisualSampleEntry {
        let stsd = try #require(moov.tracks.first?.media?.mediaInformation?.sampleTable?.sampleDescription)
        return try #require(stsd.children.first(VisualSampleEntry.self))
    }

    static func replacingSampleEntry(in moov: MovieBox, with entry: VisualSampleEntry) throws -> MovieBox {
        var moov = moov
        var trak = try #require(moov.tracks.first)
        var mdia = try #require(trak.media)
        var minf = try #require(mdia.mediaInformation)
        var stbl = try #require(minf.sampleTable)
        var stsd = try #require(stbl.sampleDescription)
        stsd.children.set(entry)
        stbl.sampleDescription = stsd
        minf.sampleTable = stbl
        mdia.mediaInformation = minf
        trak.media = mdia
        moov.children.set(trak)
        return moov
    }

    /// The moof with senc, saiz and saio added, and the trun's data offset and the saio offset
    /// pointing at the right bytes.
    static func protectedFragment(_ moof: MovieFragmentBox, subsamples: [[CENCSubsample]]) throws -> [UInt8] {
        var moof = moof
        var traf = try #require(moof.trackFragments.first)
        traf.children.append(SampleEncryptionBox(perSampleIVSize: 0, usesSubsamples: true,
                                                 samples: subsamples.map { SampleEncryptionBox.Sample(subsamples: $0) }))
        traf.children.append(SampleAuxiliaryInformationSizesBox(sampleInfoSizes: subsamples.map { UInt8(2 + 6 * $0.count) }))
        traf.children.append(SampleAuxiliaryInformationOffsetsBox(offsets: [0]))
        moof.children.set(traf)
        var bytes = try moof.serializedBytes()
        // With default-base-is-moof, both offsets count from the moof's first byte.
        let sencType = Array("senc".utf8)
        let typeIndex = try #require((0 ..< bytes.count - 4).first { Array(bytes[$0 ..< $0 + 4]) == sencType })
        var trun = try #require(traf.trackRuns.first)
        trun.dataOffset = Int32(bytes.count + 8)
        traf.children.set(trun)
        traf.children.set(SampleAuxiliaryInformationOffsetsBox(offsets: [UInt64(typeIndex + 4 + 4 + 4)]))
        moof.children.set(traf)
        bytes = try moof.serializedBytes()
        return bytes
    }

    @Test(arguments: [
        StreamSpec(name: "e2e-high-bframes-slices", frames: 30, x264Params: "slices=4:keyint=10:weightp=2", filter: "fade=in:0:12", extra: ["-bf", "3"]),
        StreamSpec(name: "e2e-baseline-odd", size: "130x74", frames: 20, profile: "baseline", x264Params: "keyint=8"),
        StreamSpec(name: "e2e-lossless-big", size: "320x240", frames: 6, profile: "high444", x264Params: "keyint=3:slices=2", extra: ["-crf", "0"]),
    ])
    func ffmpegDecryptsWhatWeEncrypt(_ spec: StreamSpec) throws {
        try #require(haveFFmpeg)
        let directory = try temporaryDirectory()
        defer { if ProcessInfo.processInfo.environment["CENC_KEEP_FILES"] == nil { try? FileManager.default.removeItem(at: directory) } }
        let clearURL = directory.appendingPathComponent("clear.mp4")
        let encryptedURL = directory.appendingPathComponent("cbcs.mp4")
        let made = try run(ffmpegPath, spec.encoderArguments + ["-movflags", "frag_keyframe+empty_moov+default_base_moof",
                                                               "-f", "mp4", clearURL.path])
        try #require(made.status == 0, "\(String(decoding: made.stderr, as: UTF8.self))")
        let clear = Array(try Data(contentsOf: clearURL))
        let (head, moov, fragments) = try Self.readFragmented(clear)
        #expect(fragments.count >= 2)

        var entry = try Self.sampleEntry(of: moov)
        let avcC = try #require(entry.avcConfiguration)
        var generator = try H264SubsampleGenerator(avcConfiguration: avcC)
        let key = SecretKey(data: Data(Self.keyBytes))
        let cipher = try CBCSSampleCipher(key: key, constantIV: Data(Self.iv), pattern: .video)
        let tenc = TrackEncryptionBox(defaultPerSampleIVSize: 0, defaultKID: [UInt8](repeating: 0, count: 16),
                                      defaultConstantIV: Self.iv, defaultCryptByteBlock: 1, defaultSkipByteBlock: 9)
        var sinf = ProtectionSchemeInfoBox()
        sinf.originalFormat = OriginalFormatBox(dataFormat: entry.format)
        sinf.schemeType = SchemeTypeBox(schemeType: "cbcs")
        var schi = SchemeInformationBox()
        schi.trackEncryption = tenc
        sinf.schemeInformation = schi
        entry.format = "encv"
        entry.protectionSchemeInfo = sinf

        var output = try BoxParser.serialize(head)
        output += try Self.replacingSampleEntry(in: moov, with: entry).serializedBytes()
        var changed = 0
        for fragment in fragments {
            var maps: [[CENCSubsample]] = []
            var payload: [UInt8] = []
            for sample in fragment.samples {
                let map = try generator.subsamples(for: sample)
                var encrypted = sample
                try cipher.encrypt(&encrypted, subsamples: map)
                if encrypted != sample { changed += 1 }
                maps.append(map)
                payload += encrypted
            }
            output += try Self.protectedFragment(fragment.moof, subsamples: maps)
            output += try MediaDataBox.header(payloadSize: UInt64(payload.count))
            output += payload
        }
        #expect(changed > 0)
        try Data(output).write(to: encryptedURL)

        // This module's own decrypt path, driven by the written senc and tenc, restores every sample.
        let reread = try Self.readFragmented(output)
        let decryptor = try CBCSSampleCipher(key: key, trackEncryption: tenc)
        for (fragment, original) in zip(reread.fragments, fragments) {
            let traf = try #require(fragment.moof.trackFragments.first)
            let senc = try #require(traf.sampleEncryption)
            #expect(senc.samples.count == fragment.samples.count)
            for ((encrypted, entry), plain) in zip(zip(fragment.samples, senc.samples), original.samples) {
                var sample = encrypted
                try decryptor.decrypt(&sample, entry: entry)
                #expect(sample == plain)
            }
        }

        // ffmpeg decrypts: the packets and the decoded frames equal the clear file's. The files
        // go through a pipe, as a player streams them (ffmpeg 5.1 mislocates the encryption
        // entries of fragments when it can seek; 6.1 and later do not).
        let hexKey = Self.keyBytes.map { String(format: "%02x", $0) }.joined()
        let clearData = Data(clear)
        let encryptedData = Data(output)
        func hashes(_ data: Data, key: String?, _ mode: [String]) throws -> (status: Int32, lines: [Substring], stderr: String) {
            let keyArguments = key.map { ["-decryption_key", $0] } ?? []
            let result = try run(ffmpegPath, ["-v", "error"] + keyArguments + ["-i", "pipe:0", "-map", "0:v"] + mode
                                 + ["-f", "framemd5", "-"], stdin: data)
            let lines = String(decoding: result.stdout, as: UTF8.self).split(separator: "\n").filter { !$0.hasPrefix("#") }
            return (result.status, lines, String(decoding: result.stderr, as: UTF8.self))
        }
        for mode in [["-c:v", "copy"], ["-pix_fmt", spec.pixelFormat]] {
            let reference = try hashes(clearData, key: nil, mode)
            let decrypted = try hashes(encryptedData, key: hexKey, mode)
            #expect(reference.status == 0 && decrypted.status == 0, "\(decrypted.stderr)")
            #expect(reference.lines.count == spec.frames)
            #expect(decrypted.lines == reference.lines)
        }
        // With a wrong key the packets differ: the file really is encrypted.
        let wrong = try hashes(encryptedData, key: String(repeating: "00", count: 16), ["-c:v", "copy"])
        let reference = try hashes(clearData, key: nil, ["-c:v", "copy"])
        #expect(wrong.lines.count == reference.lines.count)
        #expect(wrong.lines != reference.lines)
    }
}
