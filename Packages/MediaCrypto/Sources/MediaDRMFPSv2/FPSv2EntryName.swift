// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import MediaDRMMedia
/// The names of a package's entries (§4 #4): `manifest.json`, `master.m3u8`, and per component
/// `<id>.m3u8`, `<id>-init.mp4` and `<id>-segment<N>.m4s`. Ids are lowercase ASCII letters (§3
/// #3); `N` is decimal from 0 to 4092 with no leading zeros. Parsing accepts any such id, so a
/// reader can tell "an entry of a component the list does not name" from "not an fps-v2 name".
public enum FPSv2EntryName: Sendable, Equatable, Hashable, CustomStringConvertible {
    case manifest
    case master
    case playlist(component: String)
    case initSegment(component: String)
    case segment(component: String, number: Int)

    public static let manifestName = "manifest.json"
    public static let masterName = "master.m3u8"

    public init?(_ name: String) {
        if name == Self.manifestName { self = .manifest; return }
        if name == Self.masterName { self = .master; return }
        let bytes = Array(name.utf8)
        // The id is the leading run of lowercase letters; what follows decides the kind.
        var i = 0
        while i < bytes.count, bytes[i] >= 0x61, bytes[i] <= 0x7A { i += 1 }
        guard i > 0 else { return nil }
        let id = String(decoding: bytes[..<i], as: UTF8.self)
        let rest = bytes[i...]
        if rest.elementsEqual(Array(".m3u8".utf8)) { self = .playlist(component: id); return }
        if rest.elementsEqual(Array("-init.mp4".utf8)) { self = .initSegment(component: id); return }
        let prefix = Array("-segment".utf8), suffix = Array(".m4s".utf8)
        guard rest.count > prefix.count + suffix.count, rest.starts(with: prefix), rest.suffix(suffix.count).elementsEqual(suffix) else {
            return nil
        }
        let digits = rest.dropFirst(prefix.count).dropLast(suffix.count)
        guard let number = Self.segmentNumber(digits) else { return nil }
        self = .segment(component: id, number: number)
    }

    /// Decimal, no sign, no leading zero (except "0" itself), at most 4092.
    static func segmentNumber(_ digits: ArraySlice<UInt8>) -> Int? {
        guard let first = digits.first, digits.count <= 4 else { return nil }
        guard first != 0x30 || digits.count == 1 else { return nil }
        var value = 0
        for d in digits {
            guard d >= 0x30, d <= 0x39 else { return nil }
            value = value * 10 + Int(d - 0x30)
        }
        return value < FPSv2Profile.maxSegmentsPerComponent ? value : nil
    }

    public var name: String {
        switch self {
        case .manifest: Self.manifestName
        case .master: Self.masterName
        case .playlist(let id): "\(id).m3u8"
        case .initSegment(let id): "\(id)-init.mp4"
        case .segment(let id, let n): "\(id)-segment\(n).m4s"
        }
    }

    public var description: String { name }

    /// The component an entry belongs to; nil for `manifest.json` and `master.m3u8`.
    public var component: String? {
        switch self {
        case .manifest, .master: nil
        case .playlist(let id), .initSegment(let id), .segment(let id, _): id
        }
    }

    /// Entries admission reads and §12's `maxManifestBytes` bounds: all but the segments.
    public var isMetadata: Bool {
        if case .segment = self { return false }
        return true
    }

    /// The entries of a package with these components and this many segments each, in the order
    /// a writer stores them: the manifest, the master, then per component its playlist, init and
    /// segments.
    public static func packageEntries(components: [String], segmentCount: Int) -> [FPSv2EntryName] {
        var names: [FPSv2EntryName] = [.manifest, .master]
        for id in components {
            names.append(.playlist(component: id))
            names.append(.initSegment(component: id))
            for n in 0..<max(0, segmentCount) { names.append(.segment(component: id, number: n)) }
        }
        return names
    }
}
