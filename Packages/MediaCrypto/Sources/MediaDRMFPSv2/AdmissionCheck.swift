/// Every reader check of draft-arkavo-tdf-fairplay-01 §4–§9 (with the §12 limits they rely on),
/// in the order admission runs them. The raw value is the stable identifier shown by `inspect`,
/// carried by a refusal and matched by tests; it starts with the section that states the rule.
///
/// Not checked, by the spec's own terms: media segments (§4 #5: a reader MUST NOT read or
/// decrypt a segment to admit a package, so every §8 "W" row and the fragment layout stay writer
/// obligations); `keyBinding` and policy-binding values, a swapped or shared key (they need the
/// keys: §5.3 #7, §10.7); `default_KID` (§8.1 #6, §8.2 #6: not checked, all-zero allowed).
public enum AdmissionCheck: String, Sendable, Equatable, Hashable, CaseIterable, CustomStringConvertible {
    // Container (§4.1–§4.3) and the limits read from the central directory (§12).
    case archiveSize = "§12 limits: archive of at most 4,294,967,295 bytes"
    case endRecord = "§4.3 container: end record and central directory well-formed, single disk"
    case zip32 = "§4.1 container: ZIP32, no ZIP64"
    case entryCount = "§12 limits: at most 8,192 entries"
    case expandedSize = "§12 limits: entries total at most 4,294,967,295 bytes"
    case safeNames = "§4.4 entries: no traversal, absolute or backslash name"
    case uniqueNames = "§4.4 entries: no duplicate names"
    case storedEntries = "§4.1 container: every entry stored, no encryption flag, no data descriptor"
    case headersAgree = "§4.2 container: local headers agree with the central directory"
    case exactLayout = "§4.3 container: exact layout (first local header at offset 0, no gaps, no extra fields or comments, end record ends the file)"
    // Entry names (§4.4) and their sizes (§12).
    case entryNames = "§4.4 entries: ASCII fps-v2 names only, no directories"
    case requiredEntries = "§4.4 entries: manifest.json and master.m3u8 present"
    case metadataSizes = "§12 limits: manifest.json, playlists and inits of at most 1,048,576 bytes"
    case manifestEntryRead = "§4.2 container: manifest.json and master.m3u8 read, CRC-32 verified"
    // Manifest (§5) and policy (§6, §5.3, §9.6).
    case manifestJSON = "§5.1 manifest: UTF-8 JSON without duplicate keys"
    case manifestSchema = "§5 manifest: closed schema"
    case policyEncoding = "§6 policy: canonical standard base64 of a JSON object without duplicate keys"
    case policyUUID = "§6.1 policy: uuid in canonical lowercase 8-4-4-4-12 form"
    case policyDataAttributes = "§6.2 policy: body.dataAttributes non-empty, each with a non-empty attribute; dissem an array of strings when present"
    case profileVersion = "§9.6 profile: version 2 (the policy has arkavo:components)"
    case componentList = "§5.3 components: video first, optional audio second, exact keys id, kind, keyBinding"
    case keyBindingForm = "§5.3 components: keyBinding canonical standard base64 of 32 bytes"
    case classification = "§6.4 classification: readable arkavo:classification"
    case keyAccessCount = "§5.2 keyAccess: exactly one object per component"
    case keyAccessShape = "§5.2 keyAccess: type wrapped, with url, wrappedKey and policyBinding"
    case keyAccessURL = "§5.2 keyAccess: url names the accepted key service"
    case keyAccessSameURL = "§5.2 keyAccess: every object carries the same url text"
    case policyBindingForm = "§5.2 keyAccess: policyBinding HS256, canonical standard base64 of 32 bytes"
    case methodIV = "§5.4 method: iv canonical standard base64 of 16 bytes"
    // The entry set against the component list (§4.4).
    case componentEntries = "§4.4 entries: exactly the entries of the component list"
    case segmentNumbering = "§4.4 entries: segments numbered from 0 without gaps, the same count per component"
    case componentEntryRead = "§4.2 container: each component's playlist and init read, CRC-32 verified"
    // Playlists (§7).
    case masterGrammar = "§7.1–§7.2 master.m3u8: closed grammar"
    case masterComponents = "§7.2 master.m3u8: rendition, AUDIO and CODECS present exactly with the audio component"
    case mediaGrammar = "§7.1, §7.3 <id>.m3u8: closed grammar"
    case mediaKeyURI = "§7.3 <id>.m3u8: key URI is skd://<policy uuid>/<id>"
    case mediaIV = "§5.4, §7.3 <id>.m3u8: key IV, when present, equals method.iv"
    case mediaSegments = "§7.3 <id>.m3u8: map and segment URIs name this component's entries, each once, all used"
    case segmentAlignment = "§7.4 alignment: same segment count, target duration and durations as the video"
    // Init segments (§8.1, §8.2 reader rows).
    case initBoxTree = "§8 #1 <id>-init.mp4: well-formed box tree with exactly one moov"
    case initTrack = "§8 #2 <id>-init.mp4: exactly one track, of the component's kind"
    case initSampleEntry = "§8 #3 <id>-init.mp4: one protected sample entry (encv, enca)"
    case initOriginalFormat = "§8 #4 <id>-init.mp4: sinf/frma original format avc1, mp4a"
    case initScheme = "§8 #5 <id>-init.mp4: schm scheme cbcs, version 0x00010000"
    case initTrackEncryption = "§8 #6 <id>-init.mp4: tenc protected, per-sample IV size 0, 16-byte constant IV equal to method.iv"
    case initPattern = "§8 #7 <id>-init.mp4: tenc video version 1 pattern 1:9, audio version 0 pattern byte 0"
    case initCodec = "§8 #8 <id>-init.mp4: H.264 avc1 with avcC; AAC-LC with channelConfiguration 1 to 7"
    case masterChannels = "§7.2, §8.2 #8 master.m3u8: CHANNELS matches the audio init's channel count"

    public var description: String { rawValue }

    /// The section the rule comes from, e.g. "§4.3".
    public var section: String {
        String(rawValue.prefix { $0 != " " })
    }

    /// Checks that concern the ZIP container itself; a directory package has none of them.
    public var isContainerCheck: Bool {
        switch self {
        case .endRecord, .zip32, .storedEntries, .headersAgree, .exactLayout: true
        default: false
        }
    }
}
