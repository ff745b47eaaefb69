import Foundation
import MediaDRMJSON

/// A record the library seals (`LibrarySeal`): its name is its path in the library without the
/// `.sealed` extension, and is what the seal authenticates, so a record's file put in another's
/// place does not open.
struct SealedRecord: Sendable, Equatable {
    let name: String

    static let fileExtension = ".sealed"
    /// `clock.sealed`: the clock's high-water mark.
    static let clock = SealedRecord(name: "clock")
    /// `signing-keys.sealed`: the licence-signing keys pinned per key service.
    static let signingKeys = SealedRecord(name: "signing-keys")
    /// `titles/NAME/first-play.sealed`: the title's first offline play (or that there was none).
    static func firstPlay(_ title: String) -> SealedRecord { SealedRecord(name: "titles/\(title)/first-play") }

    /// What reading a sealed record found.
    enum Contents {
        case missing
        /// Present but not sealed by this library under this name.
        case broken
        case intact(JSONObject)

        var object: JSONObject? {
            if case .intact(let object) = self { return object }
            return nil
        }
    }
}

extension OfflineLibrary {
    func sealedPath(_ record: SealedRecord) -> String { path + "/" + record.name + SealedRecord.fileExtension }

    /// The seal is derived from the device key at each use: the key stays in its file, and the
    /// library object holds nothing secret.
    private func seal() throws(OfflineError) -> LibrarySeal { try LibrarySeal(deviceKey: deviceKey()) }

    func read(_ record: SealedRecord) throws(OfflineError) -> SealedRecord.Contents {
        guard let stored = try LibraryFiles.read(sealedPath(record), maxBytes: Self.maxRecordBytes) else { return .missing }
        guard let object = try seal().open(stored, name: record.name) else { return .broken }
        return .intact(object)
    }

    func write(_ object: JSONObject, to record: SealedRecord) throws(OfflineError) {
        try LibraryFiles.write(try seal().seal(object, name: record.name), to: sealedPath(record))
    }

    /// The refusal of an offline play for a sealed record that is missing or broken: what the
    /// record guards, in words, and the one thing that restores it.
    static func unsealed(_ what: String, title: String) -> OfflineError {
        OfflineError(.sealedRecord, "\(what) is missing or was changed outside the player, so this library can no longer "
                     + "vouch for it: renew the licence online (player license renew \(title)) to play the title offline again")
    }

    /// The refusal of an offline play of a title, or a library, an earlier player stored.
    static func storedByEarlierPlayer(title: String) -> OfflineError {
        OfflineError(.libraryUpgrade, "this title was stored by an earlier version of the player, whose library records "
                     + "were not protected: renew its licence online once (player license renew \(title)) to play it offline")
    }
}
