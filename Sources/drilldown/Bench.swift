import ArgumentParser
import DrillDownCore
import Foundation

/// `drilldown bench FILE`: in-process timings of the operations SPEC.md sets targets for.
struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure load, level page, outline and search times on FILE (build with -c release).")

    @OptionGroup var data: DataOptions
    @Option(name: .long, help: "Samples per measure.") var samples = 2000
    @Option(name: .long, help: "The search text.") var query = "zz"
    @OptionGroup var output: OutputOptions

    struct Measure: Encodable {
        var name: String
        var p50Microseconds: Double
        var p99Microseconds: Double
        var maxMicroseconds: Double
        var samples: Int
    }

    func run() throws {
        let loaded = try data.load()
        let whole: TreeStore? = if case .treeTable = loaded.database { try DatabaseData.readTreeTable(data.file).tree } else { loaded.tree }
        guard let tree = whole else { throw BadInput("\(data.file): bench measures documents and tree tables, not a database read through levels") }
        let source = loaded.source
        let presenter = loaded.presenter
        var rng = SystemRandomNumberGenerator()
        // Containers to sample from, found once (not timed).
        var containers: [NodeID] = []
        var stack = [source.root]
        while let n = stack.popLast() {
            let kids = source.children(of: n)
            if !kids.isEmpty { containers.append(n) }
            for c in kids where !source.children(of: c).isEmpty { stack.append(c) }
        }
        var measures: [Measure] = []
        func measure(_ name: String, _ body: () -> Void) {
            var times: [Double] = []
            times.reserveCapacity(samples)
            for _ in 0 ..< samples {
                let t0 = DispatchTime.now().uptimeNanoseconds
                body()
                times.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1000)
            }
            times.sort()
            measures.append(Measure(
                name: name, p50Microseconds: times[times.count / 2],
                p99Microseconds: times[min(times.count - 1, times.count * 99 / 100)], maxMicroseconds: times.last!, samples: samples))
        }
        var sink = 0
        measure("level page (first 100 rows of a random level)") {
            let n = containers.randomElement(using: &rng)!
            sink &+= presenter.rows(of: n, limit: 100).count
        }
        var outline = Outline(source: source)
        outline.expand(containers.randomElement(using: &rng)!)
        measure("outline expand + row lookup + collapse (random node)") {
            let n = containers.randomElement(using: &rng)!
            outline.expand(n)
            sink &+= outline.row(of: n) ?? 0
            sink &+= outline.node(atRow: outline.visibleCount / 2)?.index ?? 0
            outline.collapse(n)
        }
        let t0 = DispatchTime.now().uptimeNanoseconds
        outline.expandAll()
        let expandAll = Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6
        measure("outline row → node at a random row, everything expanded") {
            sink &+= outline.node(atRow: Int.random(in: 0 ..< max(1, outline.visibleCount), using: &rng))?.index ?? 0
        }
        let t1 = DispatchTime.now().uptimeNanoseconds
        let found = source.find(SearchQuery(query, limit: 100))
        let search = Double(DispatchTime.now().uptimeNanoseconds - t1) / 1e6
        struct Report: Encodable {
            var nodes: Int, loadMilliseconds: Double, bytesPerNode: Double, expandAllMilliseconds: Double
            var visibleRowsExpanded: Int, searchMilliseconds: Double, searchMatches: Int, measures: [Measure]
        }
        let report = Report(
            nodes: tree.count, loadMilliseconds: loaded.loadSeconds * 1000,
            bytesPerNode: Double(tree.memoryFootprint) / Double(max(1, tree.count)),
            expandAllMilliseconds: expandAll, visibleRowsExpanded: outline.visibleCount,
            searchMilliseconds: search, searchMatches: found.total, measures: measures)
        if sink == 42 { FileHandle.standardError.write(Data(" ".utf8)) }
        if output.json {
            try Out.json(report)
            return
        }
        var out = Out()
        out.line(String(format: "nodes %d   load %.1f ms   %.1f bytes/node", report.nodes, report.loadMilliseconds, report.bytesPerNode))
        out.line(String(format: "outline expand all: %.1f ms (%d rows)", expandAll, outline.visibleCount))
        out.line(String(format: "search '%@': %.1f ms (%d matches)", query, search, found.total))
        for m in measures {
            out.line(String(format: "%@: p50 %.2f µs  p99 %.2f µs  max %.1f µs", m.name, m.p50Microseconds, m.p99Microseconds, m.maxMicroseconds))
        }
        out.flush()
    }
}
