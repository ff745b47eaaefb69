import Client
import MediaDRMCrypto

/// The client's media path: a protected init segment rewritten to clear, then a media segment
/// demuxed (`moof`/`mdat`, `senc`, `saiz`/`saio`) and decrypted in `cbcs` with the fixture key.
/// Input: `FuzzInput` of two parts, the init segment and the media segment.
enum DemuxTarget {
    static let target = FuzzTarget("demux", "InitSegmentRewriter, FragmentDecryptor: demux and cbcs decryption of one segment") { input throws(FuzzViolation) in
        guard let parts = FuzzInput.split(input, into: 2),
              let initSegment = try? InitSegmentRewriter.rewrite(parts[0]) else { return .refused }
        let keys = Dictionary(uniqueKeysWithValues: initSegment.protections.keys.map { ($0, FuzzFixtures.contentKey) })
        guard let decryptor = try? FragmentDecryptor(initSegment: initSegment, keys: keys),
              let clear = try? decryptor.clearSegment(parts[1]) else { return .refused }
        return clear.isEmpty ? .refused : .accepted
    }
}
