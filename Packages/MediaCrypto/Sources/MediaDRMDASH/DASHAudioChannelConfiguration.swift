/// `AudioChannelConfiguration` with the scheme of ISO/IEC 23001-8 (ChannelConfiguration, as in
/// the AAC AudioSpecificConfig): the packager's cmaf MPD and the KAS's fps-v2 views write it.
public enum DASHAudioChannelConfiguration {
    public static let scheme = "urn:mpeg:dash:23003:3:audio_channel_configuration:2011"

    public static func element(channels: Int) -> MPDElement {
        MPDElement("AudioChannelConfiguration", [("schemeIdUri", scheme), ("value", String(channels))])
    }
}
