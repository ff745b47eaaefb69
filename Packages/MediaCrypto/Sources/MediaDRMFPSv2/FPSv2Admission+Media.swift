// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import Foundation
import MediaDRMHLS
import MediaDRMMP4
import MediaDRMMedia

// §4.4 entries against the component list, §7 playlists, §8 init segments.
extension AdmissionRun {
    func runComponentEntryChecks() {
        let limits = options.limits
        step(.componentEntries, requires: [.entryNames, .componentList]) { () throws(FPSv2Error) -> Outcome in
            let listed = Set(components.map(\.id))
            var hasPlaylist = Set<String>(), hasInit = Set<String>(), hasSegment = Set<String>()
            for name in names {
                guard let id = name.component else { continue }
                guard listed.contains(id) else {
                    throw refuse(.componentEntries, "\(name.name) belongs to a component the list does not name")
                }
                switch name {
                case .playlist: hasPlaylist.insert(id)
                case .initSegment: hasInit.insert(id)
                case .segment: hasSegment.insert(id)
                default: break
                }
            }
            for kind in components {
                guard hasPlaylist.contains(kind.id) else { throw refuse(.componentEntries, "\(kind.id).m3u8 is missing") }
                guard hasInit.contains(kind.id) else { throw refuse(.componentEntries, "\(kind.id)-init.mp4 is missing") }
                guard hasSegment.contains(kind.id) else { throw refuse(.componentEntries, "\(kind.id) has no segment") }
            }
            return .passed("")
        }
        step(.segmentNumbering, requires: [.componentEntries]) { () throws(FPSv2Error) -> Outcome in
            var counts: [Int] = []
            for kind in components {
                var numbers = Set<Int>()
                for name in names {
                    if case .segment(let id, let n) = name, id == kind.id { numbers.insert(n) }
                }
                guard numbers.count == (numbers.max() ?? -1) + 1 else {
                    throw refuse(.segmentNumbering, "the segments of \(kind.id) are not numbered from 0 without gaps")
                }
                counts.append(numbers.count)
            }
            guard let first = counts.first, counts.allSatisfy({ $0 == first }), first >= 1 else {
                throw refuse(.segmentNumbering, "the components have different segment counts")
            }
            segmentCount = first
            return .passed("\(first) segments per component")
        }
        step(.componentEntryRead, requires: [.componentEntries, .metadataSizes, .manifestEntryRead]) { () throws(FPSv2Error) -> Outcome in
            guard let store else { throw refuse(.componentEntryRead, "the package is not open") }
            for kind in components {
                do throws(FPSv2Error) {
                    playlistBytes[kind] = try store.read(FPSv2EntryName.playlist(component: kind.id).name, maxBytes: UInt64(limits.maxManifestBytes))
                    initBytes[kind] = try store.read(FPSv2EntryName.initSegment(component: kind.id).name, maxBytes: UInt64(limits.maxManifestBytes))
                } catch {
                    throw refuse(.componentEntryRead, error.reason)
                }
            }
            return .passed("")
        }
    }

    func runPlaylistChecks() {
        let hlsLimits = options.limits.playlistLimits
        step(.masterGrammar, requires: [.manifestEntryRead]) { () throws(FPSv2Error) -> Outcome in
            guard let bytes = masterBytes else { throw refuse(.masterGrammar, "master.m3u8 was not read") }
            do throws(HLSError) {
                master = try HLSParser.parseMaster(bytes, mode: .fpsV2Strict, limits: hlsLimits)
            } catch {
                throw refuse(.masterGrammar, "master.m3u8: \(Self.describe(error))")
            }
            return .passed("")
        }
        step(.masterComponents, requires: [.masterGrammar, .componentList]) { () throws(FPSv2Error) -> Outcome in
            guard let master, let variant = master.variants.first else { throw refuse(.masterComponents, "master.m3u8 has no variant") }
            let hasAudio = components.contains(.audio)
            guard master.renditions.isEmpty != hasAudio else {
                throw refuse(.masterComponents, hasAudio ? "master.m3u8 has no audio rendition for the audio component"
                                                         : "master.m3u8 has an audio rendition but no audio component")
            }
            guard (variant.audio != nil) == hasAudio else {
                throw refuse(.masterComponents, "AUDIO is present exactly when there is an audio component")
            }
            let hasMP4A = (variant.codecs ?? []).contains("mp4a.40.2")
            guard hasMP4A == hasAudio else {
                throw refuse(.masterComponents, "CODECS lists mp4a.40.2 exactly when there is an audio component")
            }
            return .passed("")
        }
        step(.mediaGrammar, requires: [.componentEntryRead]) { () throws(FPSv2Error) -> Outcome in
            for kind in components {
                guard let bytes = playlistBytes[kind] else { throw refuse(.mediaGrammar, "\(kind.id).m3u8 was not read") }
                do throws(HLSError) {
                    mediaPlaylists[kind] = try HLSParser.parseMedia(bytes, mode: .fpsV2Strict, limits: hlsLimits)
                } catch {
                    throw refuse(.mediaGrammar, "\(kind.id).m3u8: \(Self.describe(error))")
                }
            }
            return .passed("")
        }
        step(.mediaKeyURI, requires: [.mediaGrammar, .policyUUID]) { () throws(FPSv2Error) -> Outcome in
            for kind in components {
                guard let playlist = mediaPlaylists[kind], let identity = HLSFPSv2.keyIdentity(of: playlist) else {
                    throw refuse(.mediaKeyURI, "\(kind.id).m3u8 has no skd:// key")
                }
                guard identity.policyUUID == policyUUID else {
                    throw refuse(.mediaKeyURI, "\(kind.id).m3u8 key URI names another policy uuid")
                }
                guard identity.component == kind.id else {
                    throw refuse(.mediaKeyURI, "\(kind.id).m3u8 key URI names component \(identity.component)")
                }
            }
            return .passed("")
        }
        step(.mediaIV, requires: [.mediaGrammar, .methodIV]) { () throws(FPSv2Error) -> Outcome in
            var present = 0
            for kind in components {
                guard let playlist = mediaPlaylists[kind], let identity = HLSFPSv2.keyIdentity(of: playlist) else {
                    throw refuse(.mediaIV, "\(kind.id).m3u8 has no skd:// key")
                }
                guard let keyIV = identity.iv else { continue }
                present += 1
                guard keyIV == iv else { throw refuse(.mediaIV, "\(kind.id).m3u8 key IV differs from method.iv") }
            }
            return .passed(present == 0 ? "no playlist carries an IV" : "")
        }
        step(.mediaSegments, requires: [.mediaGrammar, .segmentNumbering]) { () throws(FPSv2Error) -> Outcome in
            for kind in components {
                guard let playlist = mediaPlaylists[kind] else { throw refuse(.mediaSegments, "\(kind.id).m3u8 was not parsed") }
                guard playlist.effectiveMap(forSegment: 0)?.uri == FPSv2EntryName.initSegment(component: kind.id).name else {
                    throw refuse(.mediaSegments, "\(kind.id).m3u8 does not map \(kind.id)-init.mp4")
                }
                guard playlist.segments.count == segmentCount else {
                    throw refuse(.mediaSegments, "\(kind.id).m3u8 lists \(playlist.segments.count) segments for \(segmentCount) segment entries")
                }
                for (n, segment) in playlist.segments.enumerated() {
                    guard segment.uri == FPSv2EntryName.segment(component: kind.id, number: n).name else {
                        throw refuse(.mediaSegments, "\(kind.id).m3u8 segment \(n) does not name \(kind.id)-segment\(n).m4s")
                    }
                }
            }
            return .passed("")
        }
        step(.segmentAlignment, requires: [.mediaGrammar]) { () throws(FPSv2Error) -> Outcome in
            guard components.count > 1 else { return .notApplicable("the video is the only component") }
            guard let video = mediaPlaylists[.video] else { throw refuse(.segmentAlignment, "video.m3u8 was not parsed") }
            for kind in components where kind != .video {
                guard let other = mediaPlaylists[kind] else { throw refuse(.segmentAlignment, "\(kind.id).m3u8 was not parsed") }
                guard other.segments.count == video.segments.count else {
                    throw refuse(.segmentAlignment, "\(kind.id).m3u8 has a different segment count from video.m3u8")
                }
                guard other.targetDuration == video.targetDuration else {
                    throw refuse(.segmentAlignment, "\(kind.id).m3u8 has a different EXT-X-TARGETDURATION from video.m3u8")
                }
                for (n, pair) in zip(video.segments, other.segments).enumerated() where pair.0.duration != pair.1.duration {
                    throw refuse(.segmentAlignment, "\(kind.id).m3u8 segment \(n) has a different EXTINF duration from video.m3u8")
                }
            }
            return .passed("")
        }
    }

    func runInitChecks() {
        step(.initBoxTree, requires: [.componentEntryRead]) { () throws(FPSv2Error) -> Outcome in
            for kind in components {
                initMovies[kind] = try inspection(kind).movie()
            }
            return .passed("")
        }
        step(.initTrack, requires: [.initBoxTree]) { () throws(FPSv2Error) -> Outcome in
            for kind in components {
                guard let movie = initMovies[kind] else { throw refuse(.initTrack, "\(kind.id)-init.mp4 was not parsed") }
                initTracks[kind] = try inspection(kind).track(in: movie)
            }
            return .passed("")
        }
        step(.initSampleEntry, requires: [.initTrack]) { () throws(FPSv2Error) -> Outcome in
            for kind in components {
                guard let track = initTracks[kind] else { throw refuse(.initSampleEntry, "\(kind.id)-init.mp4 has no track") }
                initEntries[kind] = try inspection(kind).sampleEntry(of: track)
            }
            return .passed("")
        }
        step(.initOriginalFormat, requires: [.initSampleEntry]) { () throws(FPSv2Error) -> Outcome in
            for kind in components {
                guard let entry = initEntries[kind] else { throw refuse(.initOriginalFormat, "\(kind.id)-init.mp4 has no sample entry") }
                initProtection[kind] = try inspection(kind).protectionInfo(of: entry)
            }
            return .passed("")
        }
        step(.initScheme, requires: [.initOriginalFormat]) { () throws(FPSv2Error) -> Outcome in
            for kind in components {
                guard let sinf = initProtection[kind] else { throw refuse(.initScheme, "\(kind.id)-init.mp4 has no sinf") }
                try inspection(kind).scheme(of: sinf)
            }
            return .passed("")
        }
        step(.initTrackEncryption, requires: [.initOriginalFormat, .methodIV]) { () throws(FPSv2Error) -> Outcome in
            for kind in components {
                guard let sinf = initProtection[kind], let iv else { throw refuse(.initTrackEncryption, "\(kind.id)-init.mp4 has no sinf") }
                initTrackEncryption[kind] = try inspection(kind).trackEncryption(of: sinf, iv: iv)
            }
            return .passed("")
        }
        step(.initPattern, requires: [.initTrackEncryption]) { () throws(FPSv2Error) -> Outcome in
            for kind in components {
                guard let tenc = initTrackEncryption[kind] else { throw refuse(.initPattern, "\(kind.id)-init.mp4 has no tenc") }
                try inspection(kind).pattern(of: tenc)
            }
            return .passed("")
        }
        step(.initCodec, requires: [.initSampleEntry]) { () throws(FPSv2Error) -> Outcome in
            for kind in components {
                guard let entry = initEntries[kind] else { throw refuse(.initCodec, "\(kind.id)-init.mp4 has no sample entry") }
                if let config = try inspection(kind).codec(of: entry) { audioChannelConfiguration = config.channelConfiguration }
            }
            return .passed("")
        }
        step(.masterChannels, requires: [.masterGrammar, .masterComponents, .initCodec]) { () throws(FPSv2Error) -> Outcome in
            guard components.contains(.audio) else { return .notApplicable("no audio component") }
            guard let configuration = audioChannelConfiguration,
                  let expected = AudioSpecificConfig.channelCount(configuration: configuration),
                  case let channels? = master?.renditions.first?.channels else {
                throw refuse(.masterChannels, "master.m3u8 or the audio init gives no channel count")
            }
            guard channels == String(expected) else {
                throw refuse(.masterChannels, "CHANNELS=\"\(channels)\" but the audio init has \(expected) channels")
            }
            return .passed("\(expected) channels")
        }
    }

    private func inspection(_ kind: MediaComponentKind) -> InitInspection {
        InitInspection(kind: kind, bytes: Array(initBytes[kind] ?? Data()))
    }

    static func describe(_ error: HLSError) -> String {
        if let line = error.line { return "line \(line): \(error.reason)" }
        return error.reason
    }
}
