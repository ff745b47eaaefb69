/// The resolution class a video rendition is keyed by under `--key-per-resolution`
/// (docs/formats.md, "cmaf"): the classes Shaka Packager labels streams with, by pixel count, so
/// a licence can grant SD without HD. Each class present gets its own content key and the
/// component id `video-<class>`.
enum VideoResolutionClass: String, CaseIterable {
    case sd
    case hd
    case uhd1
    case uhd2

    /// The most pixels of each class but the last: 768x576, 1920x1080, 4096x2160.
    static let pixelLimits: [(VideoResolutionClass, Int)] = [(.sd, 768 * 576), (.hd, 1920 * 1080), (.uhd1, 4096 * 2160)]

    init(width: Int, height: Int) {
        let pixels = width * height
        self = Self.pixelLimits.first { pixels <= $0.1 }?.0 ?? .uhd2
    }

    /// The manifest's component id.
    var componentID: String { "video-\(rawValue)" }
}
