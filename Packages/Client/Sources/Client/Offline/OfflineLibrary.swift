import Foundation
import MediaDRMCrypto
import MediaDRMJSON
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The offline library: one directory per OS user (0700) holding the device key, the records
/// sealed with a key derived from it (`LibrarySeal`) and one directory per downloaded title
/// (docs/offline.md):
///
/// ```
/// LIBRARY/device-key.pem          P-256 private key (PKCS#8 PEM, 0600), made once per library
/// LIBRARY/clock.sealed            the clock's high-water mark
/// LIBRARY/signing-keys.sealed     the licence-signing keys pinned per key service
/// LIBRARY/titles/NAME/title.json  the title record (`OfflineTitle`)
/// LIBRARY/titles/NAME/first-play.sealed  the title's first offline play
/// LIBRARY/titles/NAME/package.tdf the verified package
/// LIBRARY/titles/NAME/download/   a download under way: the bytes so far and their entity tag
/// ```
///
/// Every record is replaced atomically; nothing in it is a bearer token or a clear key.
public final class OfflineLibrary: Sendable {
    public let path: String

    static let deviceKeyName = "device-key.pem"
    static let titlesName = "titles"
    static let titleRecordName = "title.json"
    static let packageName = "package.tdf"
    static let downloadName = "download"
    static let maxRecordBytes = 1 << 20

    /// Opens the library at `path`, creating it (0700) when missing.
    public init(path: String) throws(OfflineError) {
        var trimmed = path
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed.removeLast() }
        guard !trimmed.isEmpty else { throw OfflineError(.library, "the library path is empty") }
        self.path = trimmed
        try LibraryFiles.ensurePrivateDirectory(trimmed)
        try LibraryFiles.ensurePrivateDirectory(titlesPath)
    }

    /// `$XDG_DATA_HOME/mediadrm`, else `$HOME/.local/share/mediadrm`.
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") { return data + "/mediadrm" }
        guard let home = environment["HOME"], home.hasPrefix("/") else { return nil }
        return home + "/.local/share/mediadrm"
    }

    var titlesPath: String { path + "/" + Self.titlesName }

    // MARK: Device key

    /// The library's device key, generated on first use. Two processes racing to make it agree:
    /// the key is written to a private temporary file and linked into place, and the loser reads
    /// the winner's.
    public func deviceKey() throws(OfflineError) -> ECP256.KeyAgreement.PrivateKey {
        let keyPath = path + "/" + Self.deviceKeyName
        if let existing = try LibraryFiles.read(keyPath, maxBytes: 16 << 10) {
            guard let key = try? ECP256.KeyAgreement.PrivateKey(pemRepresentation: String(decoding: existing, as: UTF8.self)) else {
                throw OfflineError(.library, "the library's device key is damaged: titles licensed to it cannot be played")
            }
            return key
        }
        let key: ECP256.KeyAgreement.PrivateKey
        do {
            key = try ECP256.KeyAgreement.PrivateKey()
        } catch {
            throw OfflineError(.library, "a device key could not be generated")
        }
        let temporary = keyPath + ".new-\(getpid())"
        try LibraryFiles.write(Data(key.pemRepresentation.utf8), to: temporary)
        defer { unlink(temporary) }
        if link(temporary, keyPath) != 0 {
            guard errno == EEXIST else { throw OfflineError(.library, "the device key could not be stored") }
            return try deviceKey()
        }
        return key
    }

    // MARK: Titles

    /// A title name: 1 to 64 of `A-Z a-z 0-9 . _ -`, not starting with a dot.
    public static func validate(name: String) throws(OfflineError) {
        let bytes = Array(name.utf8)
        guard (1...64).contains(bytes.count), bytes.first != UInt8(ascii: "."),
              bytes.allSatisfy({ (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0)
                  || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") })
        else {
            throw OfflineError(.library, "a title name is 1 to 64 letters, digits, '.', '_' or '-', not starting with '.': choose one with --name")
        }
    }

    func titleDirectory(_ name: String) -> String { titlesPath + "/" + name }
    func packagePath(_ name: String) -> String { titleDirectory(name) + "/" + Self.packageName }
    func downloadDirectory(_ name: String) -> String { titleDirectory(name) + "/" + Self.downloadName }

    /// The recorded title, or nil when there is none of that name.
    public func title(named name: String) throws(OfflineError) -> OfflineTitle? {
        try Self.validate(name: name)
        guard let data = try LibraryFiles.read(titleDirectory(name) + "/" + Self.titleRecordName, maxBytes: Self.maxRecordBytes) else {
            return nil
        }
        let title = try OfflineTitle(json: data)
        guard title.name == name else { throw OfflineError(.library, "a title record names another title: delete it and download again") }
        return title
    }

    /// The recorded title; `unknownTitle` when there is none.
    public func requireTitle(_ name: String) throws(OfflineError) -> OfflineTitle {
        guard let title = try title(named: name) else {
            throw OfflineError(.unknownTitle, "the library has no title named '\(name)': see player library")
        }
        return title
    }

    /// Every recorded title, by name; names whose record is missing (a download under way) are left out.
    public func titles() throws(OfflineError) -> [OfflineTitle] {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: titlesPath)) ?? []).sorted()
        var titles: [OfflineTitle] = []
        for name in names where (try? Self.validate(name: name)) != nil {
            if let title = try title(named: name) { titles.append(title) }
        }
        return titles
    }

    /// Names with a download under way and no record yet.
    public func pendingDownloads() -> [String] {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: titlesPath)) ?? []).sorted()
        return names.filter { name in
            (try? Self.validate(name: name)) != nil
                && !FileManager.default.fileExists(atPath: titleDirectory(name) + "/" + Self.titleRecordName)
        }
    }

    public func save(_ title: OfflineTitle) throws(OfflineError) {
        try Self.validate(name: title.name)
        try LibraryFiles.ensurePrivateDirectory(titleDirectory(title.name))
        try LibraryFiles.write(JSONWriter.write(title.jsonValue, options: [.sortedKeys]),
                               to: titleDirectory(title.name) + "/" + Self.titleRecordName)
    }

    /// Removes the title's record first (so a half-removed title is never listed), then its files.
    public func remove(_ name: String) throws(OfflineError) {
        try Self.validate(name: name)
        let directory = titleDirectory(name)
        guard FileManager.default.fileExists(atPath: directory) else {
            throw OfflineError(.unknownTitle, "the library has no title named '\(name)': see player library")
        }
        LibraryFiles.remove(directory + "/" + Self.titleRecordName)
        LibraryFiles.remove(directory)
        if FileManager.default.fileExists(atPath: directory) {
            throw OfflineError(.library, "'\(directory)' could not be removed completely: check its permissions")
        }
    }
}
