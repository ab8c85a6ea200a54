import ArgumentParser
import DrillDown
import Foundation

/// `drilldown bench FILE`: in-process timings of the operations the Performance article sets targets for.
///
/// With `--edits N` it also applies N random changes (rename, set attribute, insert, delete,
/// move at random places) through an ``EditableDocument``, times each one, and measures the
/// reads again on the edited tree.
struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure load, level page, outline and search times on FILE (build with -c release).")

    @OptionGroup var data: DataOptions
    @Option(name: .long, help: "Samples per measure.") var samples = 2000
    @Option(name: .long, help: "The search text.") var query = "zz"
    @Option(name: .long, help: "Random changes to apply and time (then the reads are measured again).") var edits = 0
    @Option(name: .long, help: "The random seed of the changes.") var seed: UInt64 = 1
    @Flag(name: .long, help: "Time changes by this thread's CPU clock, which leaves out time the scheduler gave other processes (a busy machine).") var cpuClock = false
    @Option(name: .long, help: "Also print the N slowest changes (kind, change, time), to see where a tail comes from.") var slowest = 0
    @Option(name: .long, help: "Only time loads: read the file this many more times in this process and print every time (the later reads run in memory the earlier ones freed, as a parser that keeps its buffers does).") var loads = 0
    @Option(name: .customLong("facet"), help: "Only time facets of this field (and --where filters) on the level at --level, then stop.") var facetField: String?
    @Option(name: .customLong("where"), help: "With --facet: a filter to time, and to count the facet over.") var filterExpression: String?
    @Option(name: .long, help: "With --facet: the level (a TreePath or titles); the root when omitted.") var level: String?
    @OptionGroup var output: OutputOptions

    struct Measure: Encodable {
        var name: String
        var p50Microseconds: Double
        var p99Microseconds: Double
        var maxMicroseconds: Double
        var samples: Int
    }

    struct Reads: Encodable {
        var label: String
        var expandAllMilliseconds: Double
        var visibleRowsExpanded: Int
        var searchMilliseconds: Double
        var searchMatches: Int
        var measures: [Measure]
    }

    struct Edits: Encodable {
        var applied: Int
        var refused: Int
        var change: Measure
        var perKind: [Measure]
        var undo: Measure
        var redo: Measure
        var readOnlyRSSBytes: Int
        var editableRSSBytes: Int
        var treeBytesBefore: Int
        var treeBytesAfter: Int
    }

    static func percentiles(_ name: String, _ raw: [Double]) -> Measure {
        let times = raw.sorted()
        guard let last = times.last else { return Measure(name: name, p50Microseconds: 0, p99Microseconds: 0, maxMicroseconds: 0, samples: 0) }
        return Measure(
            name: name, p50Microseconds: times[times.count / 2],
            p99Microseconds: times[min(times.count - 1, times.count * 99 / 100)], maxMicroseconds: last, samples: times.count)
    }

    static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    /// This thread's CPU time in nanoseconds.
    static func threadCPU() -> UInt64 {
        var t = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
        return UInt64(t.tv_sec) * 1_000_000_000 + UInt64(t.tv_nsec)
    }

    /// Resident memory of this process, from /proc (0 where there is none).
    static func residentBytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            let kb = line.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
            return kb * 1024
        }
        return 0
    }

    func reads(_ label: String, _ source: any Source, _ presenter: Presenter, sink: inout Int) -> Reads {
        var rng = SystemRandomNumberGenerator()
        // Containers to sample from, found once (not timed).
        var containers: [NodeID] = [source.root]  // the root at least, even when edits emptied it
        var stack = [source.root]
        while let n = stack.popLast() {
            let kids = source.children(of: n)
            if !kids.isEmpty, n != source.root { containers.append(n) }
            for c in kids where !source.children(of: c).isEmpty { stack.append(c) }
        }
        var measures: [Measure] = []
        func measure(_ name: String, _ body: () -> Void) {
            var times: [Double] = []
            times.reserveCapacity(samples)
            for _ in 0 ..< samples {
                let t0 = Self.now()
                body()
                times.append(Double(Self.now() - t0) / 1000)
            }
            measures.append(Self.percentiles(name, times))
        }
        var local = 0
        measure("level page (first 100 rows of a random level)") {
            let n = containers.randomElement(using: &rng)!
            local &+= presenter.rows(of: n, limit: 100).count
        }
        var outline = Outline(source: source)
        outline.expand(containers.randomElement(using: &rng)!)
        measure("outline expand + row lookup + collapse (random node)") {
            let n = containers.randomElement(using: &rng)!
            outline.expand(n)
            local &+= outline.row(of: n) ?? 0
            local &+= outline.node(atRow: outline.visibleCount / 2)?.index ?? 0
            outline.collapse(n)
        }
        let t0 = Self.now()
        outline.expandAll()
        let expandAll = Double(Self.now() - t0) / 1e6
        measure("outline row → node at a random row, everything expanded") {
            local &+= outline.node(atRow: Int.random(in: 0 ..< max(1, outline.visibleCount), using: &rng))?.index ?? 0
        }
        let t1 = Self.now()
        let found = source.find(SearchQuery(query, limit: 100))
        let search = Double(Self.now() - t1) / 1e6
        sink &+= local
        return Reads(
            label: label, expandAllMilliseconds: expandAll, visibleRowsExpanded: outline.visibleCount,
            searchMilliseconds: search, searchMatches: found.total, measures: measures)
    }

    /// `--loads N`: the first load's time, then N more reads of the same file in this process.
    func timeLoads(first: Double) throws {
        var times = [first * 1000]
        for _ in 0 ..< loads {
            let t0 = Self.now()
            let again = try data.load()
            times.append(Double(Self.now() - t0) / 1e6)
            withExtendedLifetime(again) {}
        }
        if output.json {
            try Out.json(["loadMilliseconds": times])
            return
        }
        var out = Out()
        out.line("loads (ms): " + times.map { String(format: "%.1f", $0) }.joined(separator: ", "))
        out.flush()
    }

    /// A random node reached by descending from the root (each level: stop or go on at random).
    static func randomNode(in source: any Source, rng: inout SplitMix, containersOnly: Bool = false) -> NodeID {
        var n = source.root
        while true {
            let kids = source.children(of: n)
            if kids.isEmpty { return n }
            if n != source.root, rng.next() % 3 == 0 { return n }
            let c = kids[Int(rng.next() % UInt64(kids.count))]
            if containersOnly, source.children(of: c).isEmpty, source.value(of: c) != nil { return n }
            n = c
        }
    }

    /// A random change at a random place of `source`.
    static func randomChange(_ source: any Source, outline: Bool, rng: inout SplitMix, serial: Int) -> (kind: Int, change: Change) {
        let kind = Int(rng.next() % 5)
        let node = randomNode(in: source, rng: &rng)
        let path = source.path(of: node)
        switch kind {
        case 0:
            return (0, .updateTitle(path, title: "renamed \(serial)"))
        case 1:
            let target = source.value(of: node) == nil ? node : (source.parent(of: node) ?? source.root)
            return (1, .setAttribute(source.path(of: target), key: "bench\(rng.next() % 4)", value: Scalar(.integer, String(serial))))
        case 2:
            let parent = randomNode(in: source, rng: &rng, containersOnly: true)
            let count = source.childCount(of: parent)
            let index = Int(rng.next() % UInt64(count + 1))
            // A row of the outline convention is a dictionary (attributes); elsewhere a value.
            let number = Scalar(.integer, String(serial))
            let new = outline ? NewNode(title: "new \(serial)", attributes: [Attribute(key: "value", value: number)]) : NewNode(title: "new \(serial)", value: number)
            return (2, .insert(new, parent: source.path(of: parent), index: index))
        case 3:
            return (3, .delete(path))
        default:
            let parent = randomNode(in: source, rng: &rng, containersOnly: true)
            return (4, .move(path, parent: source.path(of: parent), index: nil))
        }
    }

    func run() throws {
        let loaded = try data.load()
        if loads > 0 { return try timeLoads(first: loaded.loadSeconds) }
        if let facetField { return try timeFacets(loaded, field: facetField) }
        let whole: TreeStore? = if case .treeTable = loaded.database { try OpenedData.readTreeTable(data.file).tree } else { loaded.tree }
        guard let tree = whole else { throw BadInput("\(data.file): bench measures documents and tree tables, not a database read through levels") }
        var sink = 0
        let fresh = reads(edits > 0 ? "fresh tree" : "", loaded.source, loaded.presenter, sink: &sink)
        var all = [fresh]
        var editReport: Edits?
        if edits > 0 {
            let readOnlyRSS = Self.residentBytes()
            guard let documentSource = loaded.source.documentSource else { throw BadInput("\(data.file): --edits needs a document") }
            var doc = EditableDocument(source: documentSource, schema: loaded.presenter.schema)
            var rng = SplitMix(seed: seed)
            let isOutline = if case .outline = doc.mode { true } else { false }
            var times: [Double] = [], perKind = [[Double]](repeating: [], count: 5)
            var refused = 0
            var timed: [(Double, String)] = []
            for serial in 0 ..< edits {
                let (kind, change) = Self.randomChange(doc.source, outline: isOutline, rng: &rng, serial: serial)
                let clock = cpuClock ? Self.threadCPU : Self.now
                let t0 = clock()
                let ok = (try? doc.apply(change)) != nil
                let t = Double(clock() - t0) / 1000
                if ok {
                    times.append(t)
                    perKind[kind].append(t)
                    if slowest > 0 { timed.append((t, change.description)) }
                } else {
                    refused += 1
                }
            }
            for (t, what) in timed.sorted(by: { $0.0 > $1.0 }).prefix(slowest) {
                FileHandle.standardError.write(Data(String(format: "slow change %.1f µs: %@\n", t, what).utf8))
            }
            let editableRSS = Self.residentBytes()
            var undoTimes: [Double] = [], redoTimes: [Double] = []
            let steps = min(doc.undoHistory.count, 200)
            for _ in 0 ..< steps {
                let t0 = Self.now()
                doc.undo()
                undoTimes.append(Double(Self.now() - t0) / 1000)
            }
            for _ in 0 ..< steps {
                let t0 = Self.now()
                doc.redo()
                redoTimes.append(Double(Self.now() - t0) / 1000)
            }
            let names = ["rename", "set attribute", "insert", "delete", "move"]
            editReport = Edits(
                applied: times.count, refused: refused, change: Self.percentiles("one change (all kinds)", times),
                perKind: (0 ..< 5).map { Self.percentiles(names[$0], perKind[$0]) },
                undo: Self.percentiles("undo", undoTimes), redo: Self.percentiles("redo", redoTimes),
                readOnlyRSSBytes: readOnlyRSS, editableRSSBytes: editableRSS,
                treeBytesBefore: tree.memoryFootprint, treeBytesAfter: doc.tree.memoryFootprint)
            all.append(reads("after \(times.count) changes", doc.source, Presenter(source: doc.source, schema: loaded.presenter.schema), sink: &sink))
        }
        struct Report: Encodable {
            var nodes: Int, loadMilliseconds: Double, bytesPerNode: Double, expandAllMilliseconds: Double
            var visibleRowsExpanded: Int, searchMilliseconds: Double, searchMatches: Int, measures: [Measure]
            var edits: Edits?, editedReads: Reads?
        }
        let report = Report(
            nodes: tree.count, loadMilliseconds: loaded.loadSeconds * 1000,
            bytesPerNode: Double(tree.memoryFootprint) / Double(max(1, tree.count)),
            expandAllMilliseconds: fresh.expandAllMilliseconds, visibleRowsExpanded: fresh.visibleRowsExpanded,
            searchMilliseconds: fresh.searchMilliseconds, searchMatches: fresh.searchMatches, measures: fresh.measures,
            edits: editReport, editedReads: all.count > 1 ? all[1] : nil)
        if sink == 42 { FileHandle.standardError.write(Data(" ".utf8)) }
        if output.json {
            try Out.json(report)
            return
        }
        var out = Out()
        out.line(String(format: "nodes %d   load %.1f ms   %.1f bytes/node", report.nodes, report.loadMilliseconds, report.bytesPerNode))
        func show(_ m: Measure) {
            out.line(String(format: "%@: p50 %.2f µs  p99 %.2f µs  max %.1f µs  (%d)", m.name, m.p50Microseconds, m.p99Microseconds, m.maxMicroseconds, m.samples))
        }
        if let e = editReport {
            out.line("changes: \(e.applied) applied, \(e.refused) refused (invalid at the random place)\(cpuClock ? "; timed by the thread's CPU clock" : "")")
            show(e.change)
            e.perKind.forEach(show)
            show(e.undo)
            show(e.redo)
            out.line(String(format: "memory: RSS read-only %.1f MB, editable after the changes %.1f MB (%.2fx); tree %.1f MB -> %.1f MB",
                            Double(e.readOnlyRSSBytes) / 1e6, Double(e.editableRSSBytes) / 1e6,
                            Double(e.editableRSSBytes) / Double(max(1, e.readOnlyRSSBytes)),
                            Double(e.treeBytesBefore) / 1e6, Double(e.treeBytesAfter) / 1e6))
        }
        for r in all {
            if !r.label.isEmpty { out.line("-- \(r.label)") }
            out.line(String(format: "outline expand all: %.1f ms (%d rows)", r.expandAllMilliseconds, r.visibleRowsExpanded))
            out.line(String(format: "search '%@': %.1f ms (%d matches)", query, r.searchMilliseconds, r.searchMatches))
            r.measures.forEach(show)
        }
        out.flush()
    }
}

extension Bench {
    /// `--facet FIELD`: the times of a facet (and of a `--where` filter, and of the facet over
    /// its matches) on one level, each the best and the median of 7 runs, fresh caches each run.
    func timeFacets(_ loaded: OpenedData, field: String) throws {
        let id = try loaded.resolve(level)
        struct Timing: Encodable { var name: String, bestMilliseconds: Double, medianMilliseconds: Double, result: Int }
        var timings: [Timing] = []
        func time(_ name: String, _ body: (Presenter) throws -> Int) throws {
            var times: [Double] = []
            var result = 0
            for _ in 0 ..< 7 {
                let presenter = Presenter(source: loaded.source, schema: loaded.presenter.schema)
                let t0 = Self.now()
                result = try body(presenter)
                times.append(Double(Self.now() - t0) / 1_000_000)
            }
            times.sort()
            timings.append(Timing(name: name, bestMilliseconds: times[0], medianMilliseconds: times[times.count / 2], result: result))
        }
        do {
            try time("facet \(field) over \(loaded.source.childCount(of: id)) rows") { try $0.facet(of: id, field: field).distinct }
            if let filterExpression {
                let filter = try Filter(filterExpression)
                try time("where \(filterExpression)") { try $0.filtering(id, by: filter).rowCount(of: id) }
                try time("facet \(field) where \(filterExpression)") { try $0.filtering(id, by: filter).facet(of: id, field: field).rows }
            }
        } catch let error as FilterError {
            throw error.badInput
        }
        if output.json { return try Out.json(timings) }
        var out = Out()
        for t in timings {
            out.line("\(t.name): best \(String(format: "%.1f", t.bestMilliseconds)) ms, median \(String(format: "%.1f", t.medianMilliseconds)) ms (\(t.result))")
        }
        out.flush()
    }
}

/// A small seeded generator (SplitMix64), so a benchmark's changes can be replayed.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
