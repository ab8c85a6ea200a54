import DrillDownCore
import DrillDownFormats
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The audit history of a document file, kept in a sidecar journal `FILE.drilldown-history`
/// beside it: JSON lines, appended only, each record's line fsync'd before the document is
/// written (a `begin` line with the document's stamp), then marked `commit` or `abort`.
///
/// A process killed between the two (SIGKILL) loses neither: when the journal is opened again,
/// a record still begun is committed if the document changed since its stamp (the write
/// happened) and aborted if not (the change was never written, so never acknowledged).
///
/// Several processes may write one journal (a server and a command, two servers): each appends
/// under an advisory lock of the journal (`flock`, see `FileLock`), reading what the others
/// appended first, so records are numbered in turn and lines never interleave. A `begin` line
/// names its writer (host and process), and a record still begun is settled only when its writer
/// is gone: one a live process is writing is left to it.
///
/// When the journal passes ``rotationBytes`` it is renamed to `FILE.drilldown-history.1`
/// (replacing the older one), and a new one starts; both are read, so the history keeps at least
/// the last ``rotationBytes`` of records.
///
/// ```swift
/// let journal = try DocumentJournal(document: "library.yaml")
/// await model.keepHistory(in: journal)
/// ```
public final class DocumentJournal: HistoryLog, @unchecked Sendable {
    /// The journal's path.
    public let path: String
    /// The document the journal describes.
    public let document: String
    /// The size past which the journal is rotated.
    public let rotationBytes: Int
    private let lock = NSLock()
    /// Committed records, oldest first, and begun ones (by id) with the stamp they began at.
    private var committed: [HistoryRecord] = []
    private var begun: [Int64: (record: HistoryRecord, stamp: FileStamp?, writer: String?)] = [:]
    private var nextID: Int64 = 1
    /// How much of the journal has been read (another process may append).
    private var readBytes = 0
    private var readInode: UInt64 = 0

    /// The journal's path for `document`.
    public static func path(for document: String) -> String { document + ".drilldown-history" }

    /// Opens (or starts) the journal of `document` and recovers records a killed writer left begun.
    public init(document: String, rotationBytes: Int = 8 << 20) throws {
        self.document = document
        self.path = Self.path(for: document)
        self.rotationBytes = rotationBytes
        try lock.withLock {
            if let old = try? Data(contentsOf: URL(fileURLWithPath: path + ".1")) { load(old, counting: false) }
            try catchUp()
            guard !begun.isEmpty else { return }
            let journal = try locked()
            defer { journal.unlock() }
            try catchUp()
            try recover(journal)
        }
    }

    /// Waits for the journal's lock (creating the journal when missing).
    private func locked() throws -> FileLock {
        do { return try FileLock(path, creating: true) } catch { throw JournalError("\(path): cannot lock the history journal: \(error.message)") }
    }

    /// One line of the journal.
    struct Line: Codable {
        /// `begin`, `commit` or `abort`.
        var op: String
        /// The record (with `begin`).
        var record: HistoryRecord?
        /// The document's stamp when the record began.
        var stamp: Stamp?
        /// The records committed or aborted.
        var ids: [Int64]?
        /// The process writing the record (with `begin`): host and process id.
        var writer: String?
    }

    /// This process, as a `begin` line names its writer.
    static let thisWriter = "\(ProcessInfo.processInfo.hostName):\(getpid())"

    /// Whether `writer` (a `begin` line's) is a live process of this host, which may still be
    /// between the record's line and the document's write.
    static func isAlive(_ writer: String?) -> Bool {
        guard let writer, let colon = writer.lastIndex(of: ":"), writer[..<colon] == ProcessInfo.processInfo.hostName,
            let pid = pid_t(writer[writer.index(after: colon)...])
        else { return false }
        return kill(pid, 0) == 0 || errno == EPERM
    }

    /// A ``FileStamp`` as JSON.
    struct Stamp: Codable, Equatable {
        var seconds: Int, nanoseconds: Int, size: Int64, inode: UInt64
        init(_ s: FileStamp) { (seconds, nanoseconds, size, inode) = (s.seconds, s.nanoseconds, s.size, s.inode) }
    }

    static var encoder: JSONEncoder { HistoryCoding.encoder }
    static var decoder: JSONDecoder { HistoryCoding.decoder }

    /// Reads what was appended since the last read (all of it after a rotation).
    private func catchUp() throws {
        guard let handle = FileHandle(forReadingAtPath: path) else { return }
        defer { try? handle.close() }
        var s = stat()
        guard fstat(handle.fileDescriptor, &s) == 0 else { return }
        if UInt64(s.st_ino) != readInode {
            if readInode != 0 {
                committed = []
                begun = [:]
                if let old = try? Data(contentsOf: URL(fileURLWithPath: path + ".1")) { load(old, counting: false) }
            }
            readInode = UInt64(s.st_ino)
            readBytes = 0
        }
        guard Int(s.st_size) > readBytes else { return }
        try handle.seek(toOffset: UInt64(readBytes))
        let data = handle.readDataToEndOfFile()
        // Only whole lines: a writer killed mid-line leaves a fragment without its newline.
        guard let end = data.lastIndex(of: UInt8(ascii: "\n")) else { return }
        load(data[data.startIndex ... end], counting: true)
    }

    /// Applies the journal lines in `data`.
    private func load(_ data: Data, counting: Bool) {
        if counting { readBytes += data.count }
        let decoder = Self.decoder
        for line in data.split(separator: UInt8(ascii: "\n")) {
            guard let entry = try? decoder.decode(Line.self, from: line) else { continue }
            switch entry.op {
            case "begin":
                guard let record = entry.record else { continue }
                begun[record.id] = (record, entry.stamp.map { FileStamp(seconds: $0.seconds, nanoseconds: $0.nanoseconds, size: $0.size, inode: $0.inode) }, entry.writer)
                nextID = max(nextID, record.id + 1)
            case "commit":
                for id in entry.ids ?? [] { if let b = begun.removeValue(forKey: id) { committed.append(b.record) } }
            case "abort":
                for id in entry.ids ?? [] { begun[id] = nil }
            default:
                continue
            }
        }
        committed.sort { $0.id < $1.id }
    }

    /// Settles records a killed writer left begun (under `journal`'s lock): committed when the
    /// document changed since. Records of a live writer are left to it.
    private func recover(_ journal: FileLock) throws {
        let now = FileStamp.of(document)
        let (written, lost) = begun.values.filter { !Self.isAlive($0.writer) }.reduce(into: ([Int64](), [Int64]())) { acc, b in
            if b.stamp != nil, b.stamp == now { acc.1.append(b.record.id) } else { acc.0.append(b.record.id) }
        }
        if !written.isEmpty { try append([Line(op: "commit", ids: written.sorted())], to: journal, sync: true) }
        if !lost.isEmpty { try append([Line(op: "abort", ids: lost.sorted())], to: journal, sync: true) }
        try catchUp()
    }

    /// Appends `lines` to the journal `journal` locks, fsync'd when `sync`.
    private func append(_ lines: [Line], to journal: FileLock, sync: Bool) throws {
        var bytes = Data()
        let encoder = Self.encoder
        for line in lines {
            bytes.append(try encoder.encode(line))
            bytes.append(UInt8(ascii: "\n"))
        }
        let fd = journal.descriptor
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard written == bytes.count else { throw JournalError("\(path): cannot write the history journal: \(String(cString: strerror(errno)))") }
        if sync, fsync(fd) != 0 { throw JournalError("\(path): cannot sync the history journal: \(String(cString: strerror(errno)))") }
    }

    /// Moves a large journal aside (only when no record is begun), under its lock; returns
    /// whether it did (the lock is then on the journal moved aside).
    private func rotateIfLarge() throws -> Bool {
        guard begun.isEmpty, readBytes >= rotationBytes else { return false }
        if rename(path, path + ".1") != 0 { throw JournalError("\(path): cannot rotate the history journal: \(String(cString: strerror(errno)))") }
        return true
    }

    /// A fault-injection point for the crash tests: with `DRILLDOWN_JOURNAL_STOP=begun` (after a
    /// record's line is synced, before the document is written) or `=written` (after the document is
    /// written, before the commit line) the process says so on standard error and stops itself
    /// (SIGSTOP), so a test can SIGKILL it exactly there.
    static func stop(at point: String) {
        guard stopPoint == point else { return }
        FileHandle.standardError.write(Data("drilldown: journal \(point)\n".utf8))
        kill(getpid(), SIGSTOP)
    }

    static let stopPoint = ProcessInfo.processInfo.environment["DRILLDOWN_JOURNAL_STOP"]

    /// Fails with the journal's path.
    struct JournalError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    // MARK: HistoryLog

    public func begin(_ records: [HistoryRecord]) throws -> [HistoryRecord] {
        guard !records.isEmpty else { return [] }
        let numbered = try lock.withLock { () throws -> [HistoryRecord] in
            // Under the journal's lock, after reading what other processes appended: numbered after theirs.
            var journal = try locked()
            defer { journal.unlock() }
            try catchUp()
            if try rotateIfLarge() {
                journal.unlock()
                journal = try locked()
            }
            try catchUp()
            let stamp = FileStamp.of(document).map(Stamp.init)
            var numbered: [HistoryRecord] = []
            for var record in records {
                record.id = nextID
                nextID += 1
                numbered.append(record)
            }
            try append(numbered.map { Line(op: "begin", record: $0, stamp: stamp, writer: Self.thisWriter) }, to: journal, sync: true)
            try catchUp()
            return numbered
        }
        Self.stop(at: "begun")
        return numbered
    }

    public func finish(_ ids: [Int64], written: Bool) throws {
        guard !ids.isEmpty else { return }
        if written { Self.stop(at: "written") }
        try lock.withLock {
            let journal = try locked()
            defer { journal.unlock() }
            try append([Line(op: written ? "commit" : "abort", ids: ids)], to: journal, sync: written)
            try catchUp()
        }
    }

    public func page(touching path: TreePath, offset: Int, limit: Int) throws -> HistoryPage {
        let all = try lock.withLock { () throws -> [HistoryRecord] in
            try catchUp()
            return committed
        }
        return HistoryPage(all.reversed().filter { $0.touches(path) }, offset: offset, limit: limit)
    }

    public func recent(by author: HistoryAuthor, limit: Int) throws -> [HistoryRecord] {
        try lock.withLock {
            try catchUp()
            return Array(committed.reversed().lazy.filter { author.made($0) }.prefix(limit))
        }
    }

    public func record(_ id: Int64) throws -> HistoryRecord? {
        try lock.withLock {
            try catchUp()
            return committed.first { $0.id == id }
        }
    }

    public func records(after id: Int64) throws -> [HistoryRecord] {
        try lock.withLock {
            try catchUp()
            return committed.filter { $0.id > id }
        }
    }
}
