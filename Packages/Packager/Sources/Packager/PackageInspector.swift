import Encoding
import Foundation
import HLS
import JSON
import MP4
import TDF
import ZIP

/// One admission check and its outcome.
public struct InspectionCheck: Sendable, Equatable, Encodable {
    public var section: String
    public var name: String
    public var passed: Bool
    public var detail: String?
}

/// What `inspect` found: a summary and every check.
public struct InspectionReport: Sendable, Equatable, Encodable {
    public var policyUUID: String?
    public var components: [String] = []
    public var segments: Int?
    public var duration: Double?
    public var entries: Int = 0
    public var checks: [InspectionCheck] = []
    public var admitted: Bool { !checks.isEmpty && checks.allSatisfy(\.passed) }
}

/// The reader admission checks of fps-v2 §4–§9, run on a package (ZIP or directory) without any
/// key, network request or segment read (§4 #5).
public enum PackageInspector {
    public static func inspect(path: String) throws(PackagerError) -> InspectionReport {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw PackagerError(.io, "'\(path)' does not exist")
        }
        var report = InspectionReport()
        let names: [String]
        let read: (String) -> Data?
        if isDirectory.boolValue {
            names = ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted()
            read = { name in FileManager.default.contents(atPath: (path as NSString).appendingPathComponent(name)) }
        } else {
            var limits = ZIPLimits.default
            limits.maxEntries = 8_192
            let reader: ZIPReader
            do { reader = try ZIPReader(path: path, limits: limits) } catch {
                report.checks.append(InspectionCheck(section: "§4", name: "stored ZIP32 archive", passed: false, detail: error.reason))
                return report
            }
            var layout: String?
            do { try reader.verifyExactLayout(storedOnly: true) } catch { layout = error.reason }
            report.checks.append(InspectionCheck(section: "§4", name: "exact stored ZIP32 layout", passed: layout == nil && !reader.isZIP64,
                                                 detail: layout ?? (reader.isZIP64 ? "the archive is ZIP64" : nil)))
            names = reader.entries.map(\.name)
            read = { name in
                guard let entry = reader.entry(named: name), entry.uncompressedSize <= 1 << 20 else { return nil }
                return try? reader.read(entry)
            }
        }
        report.entries = names.count
        var checks = Checks()
        func finish() -> InspectionReport {
            var result = report
            result.checks += checks.list
            return result
        }
        checks.add("§12", "at most 8,192 entries", names.count <= 8_192, "\(names.count) entries")

        // §5 manifest.
        guard let manifestBytes = read("manifest.json") else {
            checks.add("§4", "manifest.json present", false, nil)
            return finish()
        }
        guard case .object(let manifest)? = try? JSONParser.parse(manifestBytes) else {
            checks.add("§5.1", "manifest.json is strict JSON (no duplicate keys)", false, nil)
            return finish()
        }
        checks.add("§5.1", "manifest.json is strict JSON (no duplicate keys)", true, nil)
        let info = manifest["encryptionInformation"]?.object
        let keyAccess = info?["keyAccess"]?.array ?? []
        let ivText = info?["method"]?.object?["iv"]?.string
        let iv = ivText.flatMap { try? Base64.decode($0) }
        checks.add("§5.4", "method.iv is canonical base64 of 16 bytes", iv?.count == 16, nil)

        // §6 policy.
        guard let policyText = info?["policy"]?.string, let policyBytes = try? Base64.decode(policyText),
              case .object(let policy)? = try? JSONParser.parse(policyBytes) else {
            checks.add("§6", "policy is canonical base64 of strict JSON", false, nil)
            return finish()
        }
        checks.add("§6", "policy is canonical base64 of strict JSON", true, nil)
        let uuid = policy["uuid"]?.string
        report.policyUUID = uuid
        checks.add("§6.1", "uuid in canonical lowercase form", uuid.map(isCanonicalUUID) ?? false, uuid)
        let attributes = policy["body"]?.object?["dataAttributes"]?.array ?? []
        checks.add("§6.2", "body.dataAttributes non-empty", !attributes.isEmpty && attributes.allSatisfy {
            ($0.object?["attribute"]?.string?.isEmpty == false)
        }, nil)
        checks.add("§6.4", "arkavo:classification readable", isReadableClassification(policy[TDFPolicy.classificationKey]),
                   policy[TDFPolicy.classificationKey] == nil ? "missing" : nil)

        // §5.3 components.
        let list = policy[TDFPolicy.componentsKey]?.array ?? []
        var ids: [String] = []
        var listOK = !list.isEmpty && list.count <= 2
        for (i, item) in list.enumerated() {
            guard let object = item.object, object.keys == ["id", "kind", "keyBinding"],
                  let id = object["id"]?.string, object["kind"]?.string == id, id == (i == 0 ? "video" : "audio"),
                  let binding = object["keyBinding"]?.string, (try? Base64.decode(binding))?.count == 32 else {
                listOK = false
                continue
            }
            ids.append(id)
        }
        report.components = ids
        checks.add("§5.3", "arkavo:components is video[, audio] with keyBindings", listOK, nil)

        // §5.2 key access.
        checks.add("§5.2", "one keyAccess per component", keyAccess.count == ids.count && !ids.isEmpty, "\(keyAccess.count) for \(ids.count)")
        let urls = Set(keyAccess.compactMap { $0.object?["url"]?.string })
        checks.add("§5.2", "every keyAccess names the same url", urls.count == 1, urls.sorted().joined(separator: ", "))
        var bindingsOK = !keyAccess.isEmpty
        for item in keyAccess {
            let object = item.object
            let hash: String? = object?["policyBinding"]?.object?["hash"]?.string ?? object?["policyBinding"]?.string
            let alg = object?["policyBinding"]?.object?["alg"]?.string ?? "HS256"
            if object?["type"]?.string != "wrapped" || alg != "HS256" || (hash.flatMap { try? Base64.decode($0) })?.count != 32
                || (object?["wrappedKey"]?.string.flatMap { try? Base64.decode($0) })?.isEmpty ?? true {
                bindingsOK = false
            }
        }
        checks.add("§5.2", "wrapped keys with raw HS256 policy bindings", bindingsOK, nil)

        // §4 entries.
        var expected: Set<String> = ["manifest.json", "master.m3u8"]
        var segmentCounts: [Int] = []
        for id in ids {
            expected.insert("\(id).m3u8")
            expected.insert("\(id)-init.mp4")
            var n = 0
            while names.contains("\(id)-segment\(n).m4s") { expected.insert("\(id)-segment\(n).m4s"); n += 1 }
            segmentCounts.append(n)
        }
        let extra = Set(names).subtracting(expected)
        let missing = expected.subtracting(names)
        checks.add("§4", "entries are exactly the components' (no others, no gaps)", extra.isEmpty && missing.isEmpty
                   && Set(names).count == names.count, extra.isEmpty ? nil : "unexpected: \(extra.sorted().prefix(3).joined(separator: ", "))")
        checks.add("§4", "every component has the same number of segments (1 to 4,093)",
                   Set(segmentCounts).count == 1 && (segmentCounts.first ?? 0) >= 1 && (segmentCounts.first ?? 0) <= 4_093,
                   segmentCounts.map(String.init).joined(separator: "/"))
        report.segments = segmentCounts.first

        // §7 playlists.
        var durations: [[Double]] = []
        var targets: [Int] = []
        var channelsInMaster: Int?
        if let bytes = read("master.m3u8"), let master = try? HLSParser.parseMaster(bytes, mode: .fpsV2Strict) {
            let variant = master.variants.first
            let codecs = variant?.codecs ?? []
            let hasAudio = ids.contains("audio")
            checks.add("§7.2", "master.m3u8 grammar, CODECS and AUDIO match the components",
                       codecs.count == (hasAudio ? 2 : 1) && codecs.first?.lowercased().hasPrefix("avc1.") == true
                       && (codecs.count == 1 || codecs[1] == "mp4a.40.2") && (variant?.audio != nil) == hasAudio
                       && master.renditions.count == (hasAudio ? 1 : 0), codecs.joined(separator: ","))
            channelsInMaster = master.renditions.first?.channels.flatMap { Int($0) }
        } else {
            checks.add("§7.2", "master.m3u8 grammar, CODECS and AUDIO match the components", false, nil)
        }
        for id in ids {
            guard let bytes = read("\(id).m3u8"), let media = try? HLSParser.parseMedia(bytes, mode: .fpsV2Strict) else {
                checks.add("§7.3", "\(id).m3u8 grammar", false, nil)
                continue
            }
            let keys = media.segments.flatMap(\.keys)
            let key = keys.first
            checks.add("§7.3", "\(id).m3u8 key skd://<uuid>/\(id) with IV = method.iv",
                       keys.count == 1 && key?.uri == "skd://\(uuid ?? "")/\(id)" && (key?.iv == nil || key?.iv == iv), nil)
            let uris = media.segments.map(\.uri)
            checks.add("§7.3", "\(id).m3u8 names its segments in order", uris == (0 ..< uris.count).map { "\(id)-segment\($0).m4s" }
                       && uris.count == segmentCounts.first, nil)
            durations.append(media.segments.map(\.duration))
            targets.append(media.targetDuration)
        }
        if durations.count > 1 {
            checks.add("§7.4", "segments aligned across components", Set(targets).count == 1 && durations.dropFirst().allSatisfy { $0 == durations[0] }, nil)
        }
        report.duration = durations.first.map { $0.reduce(0, +) }

        // §8 inits.
        for id in ids {
            let result = checkInit(read("\(id)-init.mp4"), kind: id, iv: iv)
            checks.add(id == "video" ? "§8.1" : "§8.2", "\(id)-init.mp4 protected \(id == "video" ? "encv cbcs 1:9" : "enca cbcs full-sample")",
                       result.error == nil, result.error)
            if id == "audio" {
                checks.add("§7.2", "CHANNELS matches the audio AudioSpecificConfig", result.channels != nil && result.channels == channelsInMaster,
                           "\(channelsInMaster.map(String.init) ?? "-") vs \(result.channels.map(String.init) ?? "-")")
            }
        }
        checks.add("§9.6", "not a profile version 1 package", !names.contains("playlist.m3u8") && !names.contains("init.mp4"), nil)
        return finish()
    }

    struct Checks {
        var list: [InspectionCheck] = []
        mutating func add(_ section: String, _ name: String, _ passed: Bool, _ detail: String?) {
            list.append(InspectionCheck(section: section, name: name, passed: passed, detail: detail))
        }
    }

    static func isCanonicalUUID(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false).map(\.count)
        return parts == [8, 4, 4, 4, 12] && text.utf8.allSatisfy { (0x30 ... 0x39).contains($0) || (0x61 ... 0x66).contains($0) || $0 == 0x2D }
    }

    static func isReadableClassification(_ value: JSONValue?) -> Bool {
        guard let object = value?.object, Set(object.keys) == ["v", "filter", "flagged"], object.count == 3,
              object["v"]?.number?.text == "1", object["filter"]?.string == "passed",
              let flagged = object["flagged"]?.array else { return false }
        let words = flagged.compactMap(\.string)
        return words.count == flagged.count && Set(words).count == words.count && Set(words).isSubset(of: ["nudity", "violence"])
    }

    static func checkInit(_ data: Data?, kind: String, iv: Data?) -> (error: String?, channels: Int?) {
        guard let data else { return ("missing or over 1 MiB", nil) }
        guard let boxes = try? BoxParser.parse(Array(data)) else { return ("not a well-formed box tree", nil) }
        let moovs = boxes.compactMap { $0 as? MovieBox }
        guard moovs.count == 1, let moov = moovs.first, moov.tracks.count == 1, let track = moov.tracks.first else {
            return ("needs exactly one moov with one track", nil)
        }
        let entry = track.media?.mediaInformation?.sampleTable?.sampleDescription?.children.boxes.first
        let sinf: ProtectionSchemeInfoBox?
        var channels: Int?
        if kind == "video" {
            guard track.media?.handler?.handlerType == "vide", let v = entry as? VisualSampleEntry, v.format == "encv" else {
                return ("the track is not an encv video track", nil)
            }
            guard v.avcConfiguration != nil else { return ("no avcC", nil) }
            sinf = v.protectionSchemeInfo
        } else {
            guard track.media?.handler?.handlerType == "soun", let a = entry as? AudioSampleEntry, a.format == "enca" else {
                return ("the track is not an enca audio track", nil)
            }
            guard let asc = a.elementaryStreamDescriptor?.descriptor.decoderConfig.decoderSpecificInfo?.audioSpecificConfig,
                  let config = try? AudioSpecificConfig(bytes: asc), config.audioObjectType == 2, let count = config.channelCount else {
                return ("the AudioSpecificConfig is not AAC-LC with channel configuration 1 to 7", nil)
            }
            channels = count
            sinf = a.protectionSchemeInfo
        }
        guard let sinf, sinf.originalFormat?.dataFormat == (kind == "video" ? "avc1" : "mp4a") else { return ("frma is wrong or missing", channels) }
        guard sinf.schemeType?.schemeType == "cbcs", sinf.schemeType?.schemeVersion == 0x0001_0000 else { return ("schm is not cbcs 1.0", channels) }
        guard let tenc = sinf.schemeInformation?.trackEncryption, tenc.defaultIsProtected == 1, tenc.defaultPerSampleIVSize == 0,
              let constant = tenc.defaultConstantIV, constant.count == 16 else { return ("tenc is not protected with a 16-byte constant IV", channels) }
        guard let iv, Data(constant) == iv else { return ("the tenc constant IV differs from method.iv", channels) }
        if kind == "video" {
            guard tenc.version == 1, tenc.defaultCryptByteBlock == 1, tenc.defaultSkipByteBlock == 9 else { return ("tenc is not version 1 with pattern 1:9", channels) }
        } else {
            guard tenc.version == 0, tenc.defaultCryptByteBlock == 0, tenc.defaultSkipByteBlock == 0 else { return ("tenc is not version 0 with pattern byte 0", channels) }
        }
        return (nil, channels)
    }
}
