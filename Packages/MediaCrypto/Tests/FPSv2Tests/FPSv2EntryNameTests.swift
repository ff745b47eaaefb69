import Testing
@testable import MediaDRMFPSv2

struct FPSv2EntryNameTests {
    @Test(arguments: [
        ("manifest.json", FPSv2EntryName.manifest),
        ("master.m3u8", .master),
        ("video.m3u8", .playlist(component: "video")),
        ("audio-init.mp4", .initSegment(component: "audio")),
        ("video-segment0.m4s", .segment(component: "video", number: 0)),
        ("audio-segment4092.m4s", .segment(component: "audio", number: 4092)),
        ("image.m3u8", .playlist(component: "image")),
        ("playlist.m3u8", .playlist(component: "playlist")),
    ])
    func parsesAndFormats(name: String, expected: FPSv2EntryName) {
        #expect(FPSv2EntryName(name) == expected)
        #expect(expected.name == name)
    }

    @Test(arguments: ["init.mp4", "segment0.m4s", "video-segment00.m4s", "video-segment4093.m4s", "video-segment-1.m4s",
                      "video-segment.m4s", "Video.m3u8", "video.M3U8", "video/a.m3u8", "../video.m3u8", "video-init.mp4 ",
                      "vidéo.m3u8", "video2.m3u8", "-init.mp4", ".m3u8", "manifest.JSON", "video-segment1.m4s.tmp", ""])
    func refuses(name: String) {
        #expect(FPSv2EntryName(name) == nil)
    }

    @Test func packageEntriesInWriterOrder() {
        let names = FPSv2EntryName.packageEntries(components: ["video", "audio"], segmentCount: 2).map(\.name)
        #expect(names == ["manifest.json", "master.m3u8", "video.m3u8", "video-init.mp4", "video-segment0.m4s", "video-segment1.m4s",
                          "audio.m3u8", "audio-init.mp4", "audio-segment0.m4s", "audio-segment1.m4s"])
    }
}
