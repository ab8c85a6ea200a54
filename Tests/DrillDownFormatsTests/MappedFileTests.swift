#if os(Linux)
import DrillDownCore
@testable import DrillDownFormats
import Foundation
import Testing

/// Large files are read through a guarded mapping (``MappedFile``): the same tree as from bytes,
/// and a file truncated while it is mapped is read again instead of killing the process with SIGBUS.
@Suite("Mapped reads of large files")
struct MappedFileTests {
    static func write(_ bytes: [UInt8], _ name: String) throws -> String {
        let path = NSTemporaryDirectory() + "drilldown-mapped-\(getpid())-\(name)"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test("a JSON file above the threshold reads through the mapping into the tree its bytes give")
    func sameTree() throws {
        let json = "[" + (0 ..< 60_000).map { "{\"a\": \($0), \"b\": \"x\\ty \\u00e9\", \"c\": [true, null, -1.5e3]}" }.joined(separator: ",\n") + "]"
        let bytes = Array(json.utf8)
        #expect(bytes.count > MappedFile.threshold)
        let path = try Self.write(bytes, "same.json")
        defer { unlink(path) }
        let file = try DocumentFile.read(path)
        let direct = try DocumentReader.read(bytes: bytes, file: "same.json").tree
        #expect(file.tree.count == direct.count)
        #expect(JSONScanDifferentialTests.dump(file.tree) == JSONScanDifferentialTests.dump(direct))
        #expect(file.stamp == FileStamp.of(path))
    }

    @Test("an error in a mapped file has its line and column")
    func errorPosition() throws {
        var bytes = Array(("[" + String(repeating: "1,\n", count: 400_000)).utf8)
        bytes += Array("x]".utf8)
        let path = try Self.write(bytes, "bad.json")
        defer { unlink(path) }
        do {
            _ = try DocumentFile.read(path)
            Issue.record("read a bad file")
        } catch {
            #expect(error.line == 400_001)
            #expect(error.column == 1)
        }
    }

    @Test("a file truncated while it is mapped is read again, not a SIGBUS")
    func truncatedWhileMapped() throws {
        let size = 4 << 20
        let path = try Self.write([UInt8](repeating: 0x61, count: size), "truncated")
        defer { unlink(path) }
        var seen: [Int] = []
        let sum = try AtomicFile.withContents(path) { buffer, _, _ in
            if seen.isEmpty { truncate(path, 0) }
            seen.append(buffer.count)
            var sum = 0
            for i in stride(from: 0, to: buffer.count, by: 4096) { sum &+= Int(buffer[i]) }
            return sum
        }
        #expect(seen == [size, 0])
        #expect(sum == 0)
    }
}
#endif
