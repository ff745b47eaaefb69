import Foundation
import MediaDRMZIP

/// Structure-aware mutation of ZIP inputs (TDF archives, fps-v2 packages): libFuzzer's byte
/// mutations almost always break a CRC or a size, so the reader refuses the archive before any
/// later check. This mutator reads the archive, changes its entries (one entry's bytes through
/// libFuzzer's own mutator, or an entry dropped, duplicated under another name, renamed or moved)
/// and writes an exact archive again with `ZIPWriter`, with correct sizes and CRCs. One round in
/// five, and whenever the input is not a readable archive, the whole input is mutated as bytes
/// instead, so the container checks themselves (headers, offsets, CRCs) are fuzzed too.
public enum ArchiveMutator {
    /// How the archive is written back: the fps-v2 exact layout, or an ordinary archive.
    public enum Layout: Sendable { case standard, exact }

    /// A byte mutator: mutates `bytes` in place to at most `maxSize` bytes (libFuzzer's
    /// `LLVMFuzzerMutate` in the harness).
    public typealias ByteMutator = (inout [UInt8], _ maxSize: Int) -> Void

    /// Mutates `input` (at most `maxSize` bytes out) with randomness from `seed`.
    public static func mutate(_ input: [UInt8], maxSize: Int, seed: UInt32, layout: Layout,
                              mutateBytes: ByteMutator) -> [UInt8] {
        var random = SplitMix(seed: UInt64(seed) ^ 0xA5A5_A5A5)
        if random.next() % 5 != 0,
           let rebuilt = mutateEntries(input, maxSize: maxSize, seed: seed, layout: layout, mutateBytes: mutateBytes) {
            return rebuilt
        }
        var bytes = input
        mutateBytes(&bytes, maxSize)
        return bytes
    }

    /// The entry-aware mutation: an archive written again with correct sizes and CRCs, or nil
    /// when `input` is not a readable archive or the changed entries cannot be written.
    static func mutateEntries(_ input: [UInt8], maxSize: Int, seed: UInt32, layout: Layout,
                              mutateBytes: ByteMutator) -> [UInt8]? {
        var random = SplitMix(seed: UInt64(seed))
        guard var entries = readEntries(input), !entries.isEmpty else { return nil }
        let index = Int(random.next() % UInt64(entries.count))
        switch random.next() % 16 {
        case 0:
            entries.remove(at: index)
        case 1:
            var copy = entries[index]
            copy.name += "x"
            entries.insert(copy, at: Int(random.next() % UInt64(entries.count + 1)))
        case 2:
            var name = Array(entries[index].name.utf8)
            mutateBytes(&name, name.count + 8)
            entries[index].name = String(decoding: name, as: UTF8.self)
        case 3:
            let moved = entries.remove(at: index)
            entries.insert(moved, at: Int(random.next() % UInt64(entries.count + 1)))
        default:
            let others = entries.reduce(0) { $0 + $1.data.count + $1.name.utf8.count + 128 } - entries[index].data.count
            let room = max(0, maxSize - others - 1024)
            mutateBytes(&entries[index].data, max(room, entries[index].data.count))
        }
        guard let rebuilt = write(entries, layout: layout), rebuilt.count <= maxSize else { return nil }
        return rebuilt
    }

    struct Entry {
        var name: String
        var data: [UInt8]
        var method: ZIPCompressionMethod
    }

    /// Every entry of a readable archive, uncompressed; nil when the archive or an entry does not read.
    static func readEntries(_ input: [UInt8]) -> [Entry]? {
        guard let reader = try? ZIPReader(source: ZIPMemorySource(input)) else { return nil }
        var entries: [Entry] = []
        for entry in reader.entries {
            guard let data = try? reader.read(entry) else { return nil }
            entries.append(Entry(name: entry.name, data: Array(data), method: entry.compressionMethod))
        }
        return entries
    }

    /// The entries written as one archive, or nil when the writer refuses them (a name it does
    /// not allow, two entries of one name).
    static func write(_ entries: [Entry], layout: Layout) -> [UInt8]? {
        let sink = ZIPMemorySink()
        guard let writer = try? ZIPWriter(sink: sink, layout: layout == .exact ? .exact : .standard) else { return nil }
        for entry in entries {
            let method: ZIPCompressionMethod = layout == .exact ? .stored : entry.method
            guard (try? writer.addEntry(name: entry.name, data: entry.data, method: method)) != nil else { return nil }
        }
        guard (try? writer.finish()) != nil else { return nil }
        return Array(sink.data)
    }
}

/// A small seeded generator (SplitMix64): the mutation must be a function of libFuzzer's seed.
struct SplitMix {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
