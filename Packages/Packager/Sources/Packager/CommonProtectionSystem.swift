import MediaDRMMP4

/// The W3C "common" protection system (W3C Common PSSH Box Format,
/// https://www.w3.org/TR/eme-initdata-cenc/): a `pssh` version 1 that carries no system data,
/// only the key IDs. A browser's EME hands it to any CDM (ClearKey included) as `cenc` init
/// data, so one licence request can ask for every key the package uses.
enum CommonProtectionSystem {
    /// 1077efec-c0b2-4d02-ace3-3c1e52e2fb4b.
    static let systemID: [UInt8] = [0x10, 0x77, 0xEF, 0xEC, 0xC0, 0xB2, 0x4D, 0x02,
                                    0xAC, 0xE3, 0x3C, 0x1E, 0x52, 0xE2, 0xFB, 0x4B]

    /// The `pssh` listing `keyIDs` in ascending byte order (the order does not matter to a
    /// reader; sorting makes every init of a package carry the same bytes).
    static func header(keyIDs: [[UInt8]]) -> ProtectionSystemSpecificHeaderBox {
        ProtectionSystemSpecificHeaderBox(systemID: systemID, keyIDs: keyIDs.sorted { $0.lexicographicallyPrecedes($1) }, data: [])
    }
}
