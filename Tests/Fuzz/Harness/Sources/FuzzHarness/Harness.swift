import CLibFuzzer
import FuzzTargets
import Foundation

// The libFuzzer entry points over FuzzTargets. The target is chosen by the environment variable
// FUZZ_TARGET (`make fuzz` sets it); libFuzzer's own `main` drives the run (docs/fuzzing.md).

nonisolated(unsafe) private var selected: FuzzTarget?

@_cdecl("LLVMFuzzerInitialize")
public func fuzzerInitialize(_ argc: UnsafeMutablePointer<Int32>?,
                             _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?) -> Int32 {
    let name = ProcessInfo.processInfo.environment["FUZZ_TARGET"] ?? ""
    guard let target = FuzzTargets.named(name) else {
        let names = FuzzTargets.all.map(\.name).joined(separator: ", ")
        FileHandle.standardError.write(Data("fuzz: set FUZZ_TARGET to one of: \(names)\n".utf8))
        exit(64)
    }
    selected = target
    atexit { FuzzTargets.shutDown() }
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let target = selected else { return 0 }
    let input = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    do {
        try target.run(input)
    } catch {
        // A broken invariant is a finding: abort so libFuzzer saves the input as a crash.
        FileHandle.standardError.write(Data("\(error)\n".utf8))
        abort()
    }
    return 0
}

@_cdecl("LLVMFuzzerCustomMutator")
public func fuzzerCustomMutator(_ data: UnsafeMutablePointer<UInt8>?, _ size: Int, _ maxSize: Int, _ seed: UInt32) -> Int {
    guard let data else { return 0 }
    guard let target = selected, case .archiveEntries(let layout) = target.mutation else {
        return LLVMFuzzerMutate(data, size, maxSize)
    }
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    let output = ArchiveMutator.mutate(input, maxSize: maxSize, seed: seed, layout: layout) { bytes, limit in
        let capacity = max(limit, bytes.count)
        var buffer = bytes + [UInt8](repeating: 0, count: capacity - bytes.count)
        let produced = buffer.withUnsafeMutableBufferPointer { pointer -> Int in
            guard let base = pointer.baseAddress else { return 0 }
            return LLVMFuzzerMutate(base, bytes.count, capacity)
        }
        bytes = Array(buffer.prefix(produced))
    }
    let count = min(output.count, maxSize)
    output.withUnsafeBufferPointer { source in
        if let base = source.baseAddress { data.update(from: base, count: count) }
    }
    return count
}
