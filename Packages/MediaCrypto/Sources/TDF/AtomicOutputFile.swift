import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A file written under a temporary name beside its destination and renamed over it only on
/// `commit`, so a reader of the destination never sees unverified plaintext. `discard` (or
/// deinit without commit) removes the temporary file.
final class AtomicOutputFile {
    private let destinationPath: String
    private let temporaryPath: String
    private var descriptor: Int32
    private var settled = false

    init(destination: URL) throws(TDFError) {
        let directory = destination.deletingLastPathComponent().path
        let name = destination.lastPathComponent
        guard !name.isEmpty else { throw TDFError(.invalidArgument, "the output path has no file name") }
        destinationPath = destination.path
        for _ in 0..<16 {
            let suffix = String(UInt64.random(in: 0...UInt64.max), radix: 36)
            let candidate = (directory as NSString).appendingPathComponent(".\(name).\(suffix).partial")
            let fd = open(candidate, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            if fd >= 0 {
                temporaryPath = candidate
                descriptor = fd
                return
            }
            guard errno == EEXIST else { break }
        }
        throw TDFError(.io, "the temporary output file could not be created")
    }

    deinit { discard() }

    func write(_ data: Data) throws(TDFError) {
        let failed = data.withUnsafeBytes { raw -> Bool in
            guard let base = raw.baseAddress else { return false }
            var done = 0
            while done < raw.count {
                let written = posixWrite(descriptor, base + done, raw.count - done)
                if written < 0 {
                    if errno == EINTR { continue }
                    return true
                }
                done += written
            }
            return false
        }
        if failed { throw TDFError(.io, "writing the output file failed") }
    }

    func commit() throws(TDFError) {
        guard !settled else { throw TDFError(.io, "the output file was already settled") }
        guard fsync(descriptor) == 0, fchmod(descriptor, 0o644) == 0 else {
            throw TDFError(.io, "flushing the output file failed")
        }
        close(descriptor)
        descriptor = -1
        guard rename(temporaryPath, destinationPath) == 0 else {
            throw TDFError(.io, "the output file could not be moved into place")
        }
        settled = true
    }

    func discard() {
        guard !settled else { return }
        settled = true
        if descriptor >= 0 { close(descriptor) }
        descriptor = -1
        unlink(temporaryPath)
    }
}

private func posixWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    write(fd, buffer, count)
}
