import CLibFuzzer
import Foundation
import FuzzTargets

// The libFuzzer harness over FuzzTargets: the target is chosen by the environment variable
// FUZZ_TARGET (`make fuzz` sets it), then libFuzzer's driver runs with this process's command
// line (docs/fuzzing.md). FUZZ_TARGET=list prints the targets' names, one a line, in order.

if ProcessInfo.processInfo.environment["FUZZ_TARGET"] == "list" {
    print(FuzzTargets.all.map(\.name).joined(separator: "\n"))
    exit(0)
}
guard let target = FuzzTargets.named(ProcessInfo.processInfo.environment["FUZZ_TARGET"] ?? "") else {
    let names = FuzzTargets.all.map(\.name).joined(separator: ", ")
    FileHandle.standardError.write(Data("fuzz: set FUZZ_TARGET to one of: \(names)\n".utf8))
    exit(64)
}
Harness.target = target
atexit { FuzzTargets.shutDown() }

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in Harness.testOneInput(data, size) })

enum Harness {
    nonisolated(unsafe) static var target: FuzzTarget?

    static func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
        guard let target else { return 0 }
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
}

/// libFuzzer's runtime archive refers to this symbol (its own `main` passes it to the driver).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    Harness.testOneInput(data, size)
}

/// libFuzzer calls this, when it is defined, instead of its own mutator. Archive targets get the
/// entry-aware `ArchiveMutator`; the others libFuzzer's own mutations.
@_cdecl("LLVMFuzzerCustomMutator")
public func fuzzerCustomMutator(_ data: UnsafeMutablePointer<UInt8>?, _ size: Int, _ maxSize: Int, _ seed: UInt32) -> Int {
    guard let data else { return 0 }
    guard let target = Harness.target, case .archiveEntries(let layout) = target.mutation else {
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
