#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Whole-file reads and atomic whole-file writes with plain POSIX calls.
enum AtomicFile {
    /// The largest file read into memory (the tree's text offsets are 32-bit).
    static let maxReadSize = 4 << 30 - 1

    /// The contents of the regular file at `path`.
    static func read(_ path: String) throws(FormatError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw failure(path, "cannot open file: \(systemMessage(errno))") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw failure(path, "cannot read file: \(systemMessage(errno))") }
        if info.st_mode & S_IFMT == S_IFDIR { throw failure(path, "is a directory, not a document") }
        let expected = Int(info.st_size)
        guard expected <= maxReadSize else { throw failure(path, "file too large (\(expected) bytes; the limit is 4 GiB)") }
        var result: [UInt8] = []
        if info.st_mode & S_IFMT == S_IFREG {
            var readError: Int32 = 0
            result = [UInt8](unsafeUninitializedCapacity: expected) { buffer, count in
                count = 0
                while count < expected {
                    let n = posixRead(fd, buffer.baseAddress! + count, expected - count)
                    if n < 0 {
                        if errno == EINTR { continue }
                        readError = errno
                        return
                    }
                    if n == 0 { return }
                    count += n
                }
            }
            if readError != 0 { throw failure(path, "cannot read file: \(systemMessage(readError))") }
        }
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = chunk.withUnsafeMutableBytes { posixRead(fd, $0.baseAddress!, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw failure(path, "cannot read file: \(systemMessage(errno))")
            }
            if n == 0 { break }
            result.append(contentsOf: chunk[0 ..< n])
            guard result.count <= maxReadSize else { throw failure(path, "file too large (the limit is 4 GiB)") }
        }
        return result
    }

    /// Replaces the file at `path` with `bytes` atomically: a temporary file in the same
    /// directory is written, flushed to disk and renamed over the original. On any failure the
    /// original is untouched and the temporary file removed. An existing file keeps its permissions.
    static func write(_ bytes: [UInt8], to path: String) throws(FormatError) {
        let directory: String
        let name: String
        if let slash = path.lastIndex(of: "/") {
            directory = slash == path.startIndex ? "/" : String(path[..<slash])
            name = String(path[path.index(after: slash)...])
        } else {
            directory = "."
            name = path
        }
        guard !name.isEmpty else { throw failure(path, "cannot write: the path names a directory") }
        var existing = stat()
        var mode: mode_t = 0o644
        if stat(path, &existing) == 0 {
            if existing.st_mode & S_IFMT == S_IFDIR { throw failure(path, "cannot write: is a directory") }
            mode = existing.st_mode & 0o7777
        } else {
            let mask = umask(0)
            umask(mask)
            mode = 0o666 & ~mask
        }
        var template = Array((directory + "/." + name + ".XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw failure(path, "cannot write: cannot create a temporary file in \(directory): \(systemMessage(errno))") }
        let tempPath = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var succeeded = false
        defer {
            if !succeeded { unlink(tempPath) }
        }
        do {
            defer { close(fd) }
            var written = 0
            while written < bytes.count {
                let n = bytes.withUnsafeBytes { posixWrite(fd, $0.baseAddress! + written, bytes.count - written) }
                if n < 0 {
                    if errno == EINTR { continue }
                    throw failure(path, "cannot write: \(systemMessage(errno))")
                }
                written += n
            }
            guard fchmod(fd, mode) == 0 else { throw failure(path, "cannot write: \(systemMessage(errno))") }
            guard fsync(fd) == 0 else { throw failure(path, "cannot write: flushing to disk failed: \(systemMessage(errno))") }
        }
        guard rename(tempPath, path) == 0 else { throw failure(path, "cannot write: \(systemMessage(errno))") }
        succeeded = true
        let dirfd = open(directory, O_RDONLY | O_CLOEXEC)
        if dirfd >= 0 {
            _ = fsync(dirfd)
            close(dirfd)
        }
    }

    private static func failure(_ path: String, _ message: String) -> FormatError {
        FormatError(file: path, message: message)
    }

    private static func systemMessage(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}

@inline(__always)
private func posixRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(fd, buffer, count)
}

@inline(__always)
private func posixWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    write(fd, buffer, count)
}
