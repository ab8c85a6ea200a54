import DrillDownCore
@testable import DrillDownFormats
import Foundation
import Testing

/// Issue 28, item 5: writers within a budget, readers that reserve what the system can give.
@Suite("Output and reservation budgets")
struct OutputLimitTests {
    /// Arrays nested `depth` deep around `width` numbers: a few bytes per level read, a line
    /// indented by its depth per number written.
    static func deepAndWide(depth: Int, width: Int) -> TreeStore {
        var b = TreeBuilder()
        b.beginNode()
        b.endKey()
        for _ in 0 ..< depth {
            b.openContainer(.array)
            b.beginNode()
            b.endKey()
        }
        b.openContainer(.array)
        for i in 0 ..< width {
            b.beginNode()
            b.endKey()
            b.appendText(String(i))
            b.finishScalar(.integer)
        }
        for _ in 0 ... depth { b.closeContainer() }
        return b.build()
    }

    static func temporaryDirectory() -> String {
        let dir = NSTemporaryDirectory() + "outputlimit-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    @Test("sizes parse with binary units, and nonsense does not")
    func parsing() {
        #expect(OutputLimit(parsing: "500M")?.bytes == 500 << 20)
        #expect(OutputLimit(parsing: "2G")?.bytes == 2 << 30)
        #expect(OutputLimit(parsing: "1.5g")?.bytes == 3 << 29)
        #expect(OutputLimit(parsing: "64KiB")?.bytes == 64 << 10)
        #expect(OutputLimit(parsing: "1048576")?.bytes == 1 << 20)
        #expect(OutputLimit(parsing: "10MB")?.bytes == 10 << 20)
        for bad in ["", "M", "-5M", "5X", "1e3", "1.2.3K", "99999999999T"] {
            #expect(OutputLimit(parsing: bad) == nil, "\(bad)")
        }
    }

    @Test("the default scales the input, has a floor, and stays within half the memory available")
    func defaultLimit() {
        #expect(OutputLimit.default(inputBytes: 40_000, available: nil).bytes == 256 << 20)
        #expect(OutputLimit.default(inputBytes: 100 << 20, available: nil).bytes == 6400 << 20)
        #expect(OutputLimit.default(inputBytes: 100 << 20, available: 1 << 30).bytes == 512 << 20)
        #expect(OutputLimit.default(inputBytes: Int.max / 2, available: nil).bytes == Int.max)
    }

    @Test("a file output keeps, then streams, then only counts past its limit; what it writes is what collecting keeps")
    func outputModes() throws {
        let tree = Self.deepAndWide(depth: 300, width: 3000)
        for format in DocumentFormat.treeFormats {
            let whole = try DocumentWriter.data(tree, format: format)
            for (keep, limit) in [(Int.max, Int.max), (10_000, Int.max), (10_000, whole.count / 3)] {
                let path = Self.temporaryDirectory() + "/out"
                var total = 0, over = false, held = 0
                try AtomicFile.write(to: path) { fd throws(FormatError) in
                    var out = WriterOutput(.file(fd, keep: keep, limit: limit))
                    do throws(WriteFailure) {
                        try DocumentWriter.encode(tree, format: format, to: &out)
                        try out.finish()
                    } catch {
                        throw FormatError(file: path, message: error.message)
                    }
                    (total, over, held) = (out.total, out.isOverLimit, out.bytes.count)
                }
                let written = try AtomicFile.read(path)
                #expect(total == whole.count, "\(format) \(keep) \(limit)")
                if limit == Int.max {
                    #expect(!over && written == whole, "\(format) \(keep)")
                } else {
                    #expect(over && written.count <= limit && written == Array(whole.prefix(written.count)), "\(format)")
                    #expect(held < 2 * WriterOutput.chunk + 100_000, "\(format): counting held \(held) bytes")
                }
            }
        }
    }

    @Test("an output over the limit is refused with its size, and nothing is written")
    func refusal() throws {
        let tree = Self.deepAndWide(depth: 2000, width: 2000)  // 8 MB of JSON from 20 KB of it
        let dir = Self.temporaryDirectory()
        let path = dir + "/out.json"
        let limit = OutputLimit(bytes: 1 << 20, origin: "--max-output 1M")
        let error = #expect(throws: FormatError.self) { try DocumentWriter.write(tree, to: path, format: .json, limit: limit) }
        let size = try DocumentWriter.data(tree, format: .json).count
        #expect(error?.file == path)
        #expect(error?.message.contains("the JSON output would be \(size) bytes") == true, "\(String(describing: error))")
        #expect(error?.message.contains("over the output limit of 1 MiB (--max-output 1M)") == true)
        #expect(error?.message.contains("raise it with --max-output") == true)
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty, "no temporary file is left")

        // An existing file stays as it was.
        try AtomicFile.write(Array("{}".utf8), to: path)
        #expect(throws: FormatError.self) { try DocumentWriter.write(tree, to: path, format: .yaml, limit: limit) }
        #expect(try AtomicFile.read(path) == Array("{}".utf8))

        // Within the limit it is written, the same bytes as in memory.
        try DocumentWriter.write(tree, to: path, format: .json, limit: OutputLimit(bytes: size, origin: "exact"))
        #expect(try AtomicFile.read(path) == DocumentWriter.data(tree, format: .json))
    }

    @Test("a reservation the system refuses is an error, and a counted bound is used when the size-based one cannot be had")
    func reservations() throws {
        #expect(throws: ReservationFailure.self) {
            _ = try TreeBuilder.build(nodeCapacity: 1 << 56, textCapacity: 16) { _ in true }
        }
        #expect(TreeBuilder.nodeCapacity(atMost: 1 << 56, textCapacity: 16) { 42 } == 42)
        #expect(TreeBuilder.nodeCapacity(atMost: 1000, textCapacity: 16) { 42 } == 1000)
        let failure = ReservationFailure(bytes: 5 << 30, purpose: "the tree's arrays")
        #expect(failure.description.contains("5368709120 bytes (5 GiB) for the tree's arrays could not be reserved"))
    }

    @Test("the counted node bounds hold for what the writers write and for flow YAML")
    func countedBounds() throws {
        let trees = [Self.deepAndWide(depth: 50, width: 50), TreeValue.seed.store]
        for tree in trees {
            for (format, bound) in [(DocumentFormat.yaml, NodeBound.yaml), (.plistXML, NodeBound.xml)] {
                let bytes = try DocumentWriter.data(tree, format: format)
                #expect(bytes.withUnsafeBufferPointer(bound) >= tree.count, "\(format)")
            }
        }
        for text in ["[a, b, [c, {d: e, f}], {}]", "{a, b}", "[a: b]", "? x\n: y\n", "x", "- - - a\n  - b\n"] {
            let tree = try DocumentReader.read(bytes: Array(text.utf8), file: "t.yaml", format: .yaml).tree
            #expect(Array(text.utf8).withUnsafeBufferPointer(NodeBound.yaml) >= tree.count, "\(text)")
        }
    }
}
