import Foundation
import MediaDRMEncoding

extension HLSKey {
    /// `KEYFORMAT` of the W3C ClearKey key system.
    public static let clearKeyFormat = "org.w3.clearkey"

    /// The ClearKey `EXT-X-KEY` of a `SAMPLE-AES` (`cbcs`) rendition: its URI is the key ID as a
    /// `data:` URI (RFC 2397; hls.js takes the key ID from its bytes), its IV the constant IV of
    /// the `tenc`. The packager's cmaf playlists and the KAS's fps-v2 views write it.
    public static func clearKey(keyID: [UInt8], iv: Data?) -> HLSKey {
        HLSKey(method: .sampleAES, uri: "data:text/plain;base64,\(Base64.encode(Data(keyID)))", iv: iv,
               keyFormat: clearKeyFormat, keyFormatVersions: "1")
    }
}
