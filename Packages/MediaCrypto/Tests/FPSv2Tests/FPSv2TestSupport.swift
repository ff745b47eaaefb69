import MediaDRMCrypto
import MediaDRMEncoding
import Foundation
import MediaDRMJSON
import MediaDRMMP4
import MediaDRMTDF
import Testing
import MediaDRMZIP
@testable import MediaDRMFPSv2
import MediaDRMMedia

/// draft-arkavo-tdf-fairplay-01 Appendix A, byte for byte.
enum Vectors {
    static let videoKey = SecretKey(data: hex("000102030405060708090a0b0c0d0e0f"))
    static let audioKey = SecretKey(data: hex("101112131415161718191a1b1c1d1e1f"))
    static let videoKeyBinding = "9n5YWFmN3MC7g9kJH/tZ98P5JMMEGIz1C+zwHbchEB4="
    static let audioKeyBinding = "rVO1aH+bdtNnKvDGX38OaorFTRMJsPMGbMJNGKKLU3Q="
    static let swappedKeyBinding = "4WqNpABYVXOM11ru1ClCNaEZZ8HOCCY+Ag0tppvil80="
    static let uuid = "3f1c9e2a-7b4d-4e8f-9a21-5c6d7e8f9a0b"
    static let policyBefore = #"{"arkavo:classification":{"filter":"passed","flagged":[],"v":1},"body":{"dataAttributes":[{"attribute":"https://patreon.arkavo.com/attr/campaign-tier/value/13167240_24457368"}],"dissem":[]},"uuid":"3f1c9e2a-7b4d-4e8f-9a21-5c6d7e8f9a0b"}"#
    static let policyAfter = #"{"arkavo:components":[{"id":"video","kind":"video","keyBinding":"9n5YWFmN3MC7g9kJH/tZ98P5JMMEGIz1C+zwHbchEB4="},{"id":"audio","kind":"audio","keyBinding":"rVO1aH+bdtNnKvDGX38OaorFTRMJsPMGbMJNGKKLU3Q="}],"arkavo:classification":{"filter":"passed","flagged":[],"v":1},"body":{"dataAttributes":[{"attribute":"https://patreon.arkavo.com/attr/campaign-tier/value/13167240_24457368"}],"dissem":[]},"uuid":"3f1c9e2a-7b4d-4e8f-9a21-5c6d7e8f9a0b"}"#
    static let videoPolicyBinding = "YfWHFTZaDRIdmvAJhng0YHwLLHeKeEYNGKXCXd9wWqc="
    static let audioPolicyBinding = "BYwGfQat7pK/d/NCvjZZqIryPOUA72NPx+1O/oBXF5A="
    static let videoOnlyPolicyAfter = #"{"arkavo:components":[{"id":"video","kind":"video","keyBinding":"9n5YWFmN3MC7g9kJH/tZ98P5JMMEGIz1C+zwHbchEB4="}],"# + String(policyBefore.dropFirst())
    static let videoOnlyPolicyBinding = "gzj4O10aZXXETOaFvB+qGPqBV48CYTEtDdPXk8azn8o="
    static let iv = hex("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff")
    static let methodIV = "8PHy8/T19vf4+fr7/P3+/w=="

    static let masterWithAudio = """
    #EXTM3U
    #EXT-X-VERSION:7
    #EXT-X-INDEPENDENT-SEGMENTS
    #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="audio",NAME="Audio",LANGUAGE="und",DEFAULT=YES,AUTOSELECT=YES,CHANNELS="2",URI="audio.m3u8"
    #EXT-X-STREAM-INF:BANDWIDTH=2500000,AVERAGE-BANDWIDTH=2000000,CODECS="avc1.640028,mp4a.40.2",RESOLUTION=1920x1080,FRAME-RATE=30.000,AUDIO="audio"
    video.m3u8
    """
    static let masterVideoOnly = """
    #EXTM3U
    #EXT-X-VERSION:7
    #EXT-X-INDEPENDENT-SEGMENTS
    #EXT-X-STREAM-INF:BANDWIDTH=2400000,AVERAGE-BANDWIDTH=1900000,CODECS="avc1.640028",RESOLUTION=1920x1080,FRAME-RATE=30.000
    video.m3u8
    """
    static func mediaPlaylist(_ id: String) -> String {
        """
        #EXTM3U
        #EXT-X-VERSION:7
        #EXT-X-TARGETDURATION:6
        #EXT-X-MEDIA-SEQUENCE:0
        #EXT-X-PLAYLIST-TYPE:VOD
        #EXT-X-INDEPENDENT-SEGMENTS
        #EXT-X-KEY:METHOD=SAMPLE-AES,URI="skd://3f1c9e2a-7b4d-4e8f-9a21-5c6d7e8f9a0b/\(id)",KEYFORMAT="com.apple.streamingkeydelivery",KEYFORMATVERSIONS="1",IV=0xF0F1F2F3F4F5F6F7F8F9FAFBFCFDFEFF
        #EXT-X-MAP:URI="\(id)-init.mp4"
        #EXTINF:6.00000,
        \(id)-segment0.m4s
        #EXTINF:6.00000,
        \(id)-segment1.m4s
        #EXTINF:4.50000,
        \(id)-segment2.m4s
        #EXT-X-ENDLIST
        """
    }

    static func hex(_ text: String) -> Data {
        (try? Hex.decode(text)) ?? Data()
    }
}

/// The parameters of a synthetic one-track init, valid by default; tests change one.
struct InitSpec {
    var kind: MediaComponentKind
    var sampleFormat: FourCC
    var originalFormat: FourCC
    var handler: FourCC
    var scheme: FourCC = "cbcs"
    var schemeVersion: UInt32 = 0x0001_0000
    var isProtected: UInt8 = 1
    var perSampleIVSize: UInt8 = 0
    var constantIV: [UInt8]? = Array(Vectors.iv)
    var crypt: UInt8
    var skip: UInt8
    var tencVersion: UInt8
    var withAVCC = true
    /// AAC-LC, 44.1 kHz, channelConfiguration 2.
    var audioSpecificConfig: [UInt8] = [0x12, 0x10]
    var trackCount = 1
    var moovCount = 1
    var kid: [UInt8] = Array(repeating: 0, count: 16)

    init(_ kind: MediaComponentKind) {
        self.kind = kind
        switch kind {
        case .video:
            sampleFormat = "encv"; originalFormat = "avc1"; handler = "vide"; crypt = 1; skip = 9; tencVersion = 1
        case .audio:
            sampleFormat = "enca"; originalFormat = "mp4a"; handler = "soun"; crypt = 0; skip = 0; tencVersion = 0
        }
    }

    func bytes() throws -> Data {
        var tenc = TrackEncryptionBox(defaultIsProtected: isProtected, defaultPerSampleIVSize: perSampleIVSize, defaultKID: kid,
                                      defaultConstantIV: constantIV, defaultCryptByteBlock: crypt, defaultSkipByteBlock: skip)
        tenc.version = tencVersion
        let sinf = ProtectionSchemeInfoBox(children: [OriginalFormatBox(dataFormat: originalFormat),
                                                      SchemeTypeBox(schemeType: scheme, schemeVersion: schemeVersion),
                                                      SchemeInformationBox(children: [tenc])])
        let entry: any MP4Box
        let mediaHeader: any MP4Box
        switch kind {
        case .video:
            let avcC = AVCConfigurationBox(profileIndication: 0x64, profileCompatibility: 0, levelIndication: 0x28,
                                           sequenceParameterSets: [[0x67, 0x64, 0x00, 0x28, 0xAC]], pictureParameterSets: [[0x68, 0xEE, 0x3C, 0xB0]])
            var children = BoxList()
            if withAVCC { children.append(avcC) }
            children.append(sinf)
            entry = VisualSampleEntry(format: sampleFormat, width: 1920, height: 1080, children: children)
            mediaHeader = VideoMediaHeaderBox()
        case .audio:
            let config = DecoderConfigDescriptor(bufferSizeDB: 0, maxBitrate: 128_000, avgBitrate: 128_000,
                                                 decoderSpecificInfo: DecoderSpecificInfo(bytes: audioSpecificConfig))
            let esds = ESDBox(descriptor: ESDescriptor(esID: 2, decoderConfig: config))
            entry = AudioSampleEntry(format: sampleFormat, channelCount: 2, sampleRate: 44_100, children: [esds, sinf])
            mediaHeader = SoundMediaHeaderBox()
        }
        let stbl = SampleTableBox(children: [
            SampleDescriptionBox(entries: [entry]),
            TimeToSampleBox(entries: []),
            SampleToChunkBox(entries: []),
            SampleSizeBox(entrySizes: []),
            ChunkOffsetBox(chunkOffsets: []),
        ])
        let minf = MediaInformationBox(children: [mediaHeader, DataInformationBox(children: [DataReferenceBox()]), stbl])
        let mdia = MediaBox(children: [MediaHeaderBox(timescale: kind == .video ? 90_000 : 44_100, duration: 0),
                                       HandlerBox(handlerType: handler, name: kind == .video ? "VideoHandler" : "SoundHandler"), minf])
        let trak = TrackBox(children: [TrackHeaderBox(trackID: 1, duration: 0), mdia])
        var moovChildren: BoxList = [MovieHeaderBox(timescale: 1000, duration: 0, nextTrackID: 2)]
        for _ in 0..<trackCount { moovChildren.append(trak) }
        moovChildren.append(MovieExtendsBox(children: [TrackExtendsBox(trackID: 1)]))
        let moov = MovieBox(children: moovChildren)
        var boxes: [any MP4Box] = [FileTypeBox(majorBrand: "iso6", minorVersion: 0, compatibleBrands: ["iso6", "cmfc", "dash"])]
        for _ in 0..<moovCount { boxes.append(moov) }
        return Data(try BoxParser.serialize(boxes))
    }
}

/// A minimal media segment: styp, moof with one traf, mdat. Admission never reads it (§4 #5).
func syntheticSegment(number: Int) throws -> Data {
    let payload = [UInt8](repeating: UInt8(truncatingIfNeeded: number), count: 32)
    let traf = TrackFragmentBox(children: [TrackFragmentHeaderBox(trackID: 1),
                                           TrackFragmentBaseMediaDecodeTimeBox(baseMediaDecodeTime: UInt64(number) * 540_000),
                                           TrackRunBox(dataOffset: 0, samples: [.init(sampleDuration: 3000, sampleSize: 32)])])
    let boxes: [any MP4Box] = [FileTypeBox(type: "styp", majorBrand: "msdh", minorVersion: 0, compatibleBrands: ["msdh", "msix"]),
                               MovieFragmentBox(children: [MovieFragmentHeaderBox(sequenceNumber: UInt32(number + 1)), traf]),
                               MediaDataBox(payloadSize: UInt64(payload.count))]
    return Data(try BoxParser.serialize(boxes) + payload)
}

/// A complete package built from the Appendix A vectors, as ordered entries that tests mutate.
struct PackageFixture {
    var entries: [(name: String, data: Data)]

    static let placeholderWrappedKey = Data(repeating: 0xA5, count: 256)

    static func valid(audio: Bool = true) throws -> PackageFixture {
        var keys = [FPSv2Manifest.ComponentKey(kind: .video, key: Vectors.videoKey, wrappedKey: placeholderWrappedKey)]
        if audio { keys.append(FPSv2Manifest.ComponentKey(kind: .audio, key: Vectors.audioKey, wrappedKey: placeholderWrappedKey)) }
        let manifest = try FPSv2Manifest.make(policy: Data(Vectors.policyBefore.utf8), components: keys, iv: Vectors.iv,
                                              keyServiceURL: KeyServiceURL.platform)
        var entries: [(String, Data)] = [("manifest.json", manifest.jsonData()),
                                         ("master.m3u8", Data((audio ? Vectors.masterWithAudio : Vectors.masterVideoOnly).utf8))]
        for kind in keys.map(\.kind) {
            entries.append(("\(kind.id).m3u8", Data(Vectors.mediaPlaylist(kind.id).utf8)))
            entries.append(("\(kind.id)-init.mp4", try InitSpec(kind).bytes()))
            for n in 0..<3 { entries.append(("\(kind.id)-segment\(n).m4s", try syntheticSegment(number: n))) }
        }
        return PackageFixture(entries: entries.map { (name: $0.0, data: $0.1) })
    }

    subscript(name: String) -> Data? {
        get { entries.first { $0.name == name }?.data }
        set {
            if let index = entries.firstIndex(where: { $0.name == name }) {
                if let newValue { entries[index].data = newValue } else { entries.remove(at: index) }
            } else if let newValue {
                entries.append((name: name, data: newValue))
            }
        }
    }

    mutating func rename(_ old: String, to new: String) {
        if let index = entries.firstIndex(where: { $0.name == old }) { entries[index].name = new }
    }

    mutating func replaceText(in name: String, _ old: String, with new: String) throws {
        let text = try #require(self[name].map { String(decoding: $0, as: UTF8.self) })
        #expect(text.contains(old), "fixture text to replace is missing")
        self[name] = Data(text.replacingOccurrences(of: old, with: new).utf8)
    }

    /// Rewrites manifest.json through its JSON object.
    mutating func editManifest(_ edit: (JSONObject) throws -> JSONObject) throws {
        let value = try JSONParser.parse(try #require(self["manifest.json"]))
        let object = try #require(value.object)
        self["manifest.json"] = JSONWriter.write(.object(try edit(object)), options: [])
    }

    /// Rewrites `encryptionInformation.<key>` of the manifest.
    mutating func editEncryptionInformation(_ edit: (JSONObject) throws -> JSONObject) throws {
        try editManifest { root in
            let info = try #require(root["encryptionInformation"]?.object)
            return root.setting("encryptionInformation", .object(try edit(info)))
        }
    }

    /// Rewrites the decoded policy (bindings are not recomputed: admission never checks them).
    mutating func editPolicy(_ edit: (JSONObject) throws -> JSONObject) throws {
        try editEncryptionInformation { info in
            let text = try #require(info["policy"]?.string)
            let policy = try #require(try JSONParser.parse(Base64.decode(text)).object)
            return info.setting("policy", .string(Base64.encode(JSONWriter.write(.object(try edit(policy)), options: []))))
        }
    }

    mutating func editKeyAccess(_ index: Int, _ edit: (JSONObject) throws -> JSONObject) throws {
        try editEncryptionInformation { info in
            var items = try #require(info["keyAccess"]?.array)
            items[index] = .object(try edit(try #require(items[index].object)))
            return info.setting("keyAccess", .array(items))
        }
    }

    /// The stored ZIP in the exact layout (or, to break it on purpose, ZIP64 or deflated entries).
    func zip(forceZIP64: Bool = false, deflating: Set<String> = []) throws -> Data {
        let sink = ZIPMemorySink()
        let writer = try ZIPWriter(sink: sink, layout: forceZIP64 ? .standard : .exact, forceZIP64: forceZIP64)
        for entry in entries {
            try writer.addEntry(name: entry.name, data: entry.data, method: deflating.contains(entry.name) ? .deflate : .stored)
        }
        _ = try writer.finish()
        return sink.data
    }

    /// The same entries as files of a fresh directory.
    func directory() throws -> String {
        let path = NSTemporaryDirectory() + "fpsv2-test-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        for entry in entries {
            try entry.data.write(to: URL(fileURLWithPath: path + "/" + entry.name))
        }
        return path
    }
}

extension JSONObject {
    func setting(_ key: String, _ value: JSONValue) -> JSONObject {
        var members = self.members.map { ($0.key, $0.value) }
        if let index = members.firstIndex(where: { $0.0 == key }) { members[index].1 = value } else { members.append((key, value)) }
        return JSONObject(members)
    }

    func removing(_ key: String) -> JSONObject {
        JSONObject(members.filter { $0.key != key }.map { ($0.key, $0.value) })
    }
}

extension Data {
    /// Replaces every occurrence of an ASCII string (names in ZIP headers).
    func replacingASCII(_ old: String, with new: String) -> Data {
        precondition(old.utf8.count == new.utf8.count)
        var bytes = [UInt8](self)
        let o = Array(old.utf8), n = Array(new.utf8)
        var i = 0
        while i + o.count <= bytes.count {
            if Array(bytes[i..<(i + o.count)]) == o {
                bytes.replaceSubrange(i..<(i + o.count), with: n)
                i += o.count
            } else {
                i += 1
            }
        }
        return Data(bytes)
    }

    func range(ofASCII text: String) -> Range<Int>? {
        let needle = Array(text.utf8)
        let bytes = [UInt8](self)
        guard bytes.count >= needle.count else { return nil }
        for i in 0...(bytes.count - needle.count) where Array(bytes[i..<(i + needle.count)]) == needle {
            return i..<(i + needle.count)
        }
        return nil
    }
}
