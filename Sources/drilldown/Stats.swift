import ArgumentParser
import DrillDown
import DrillDownFormats
import DrillDownPostgres
import DrillDownStore
import Foundation

/// `drilldown stats FILE`: size, shape and load cost of a data set.
struct Stats: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Count nodes, depth and the widest level; time the load and measure bytes per node.")

    @OptionGroup var data: DataOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        let loaded = try data.load()
        // The file a symlink points to, not the link.
        let bytes = FileStatus(data.file)?.bytes ?? 0
        if let lazy = loaded.storeSource as? LazyJSONSource { return try lazyStats(lazy, loaded) }
        let rss = Self.peakResidentBytes()
        struct StatsJSON: Encodable {
            var file: String, format: String, mode: String, fileBytes: Int, nodes: Int, rows: Int, depth: Int, widestLevel: Int
            var loadMilliseconds: Double, storeBytes: Int, bytesPerNode: Double, peakResidentBytes: Int
            /// Whether the keys and values are slices of the mapped file (counted in `storeBytes`) rather than a copy.
            var textInFile: Bool
        }
        let source = loaded.source
        // A PostgreSQL table is counted in SQL (a walk would read every level of millions of rows).
        var rowCount = 0, widest = 0, deepest = 0
        if case .postgres(let table) = loaded.database, let lazy = loaded.storeSource as? TreeTableSource {
            do { rowCount = try table.rowCount(outline: lazy.mode) } catch { throw BadInput(error.description) }
        } else if let mapped = loaded.storeSource as? RelationalSource {
            // Mapped tables are counted in SQL too (SQLite or PostgreSQL).
            do { (rowCount, widest, deepest) = try mapped.shape() } catch { throw BadInput("\(error)") }
        } else if let document = source.documentSource {
            (rowCount, widest, deepest) = document.rowShape()
        } else {
            (rowCount, widest, deepest) = source.walkedRowShape()
        }
        // A tree table is counted in SQL; a relational database has no document tree: its rows are its nodes.
        var shape: (nodes: Int, depth: Int, widest: Int)?
        if case .treeTable(let table) = loaded.database {
            do { shape = try table.shape() } catch { throw BadInput(error.description) }
        }
        if case .postgres(let table) = loaded.database {
            do { shape = try table.shape() } catch { throw BadInput(error.description) }
        }
        let nodes = loaded.tree?.count ?? shape?.nodes ?? rowCount + 1
        let storeBytes = loaded.tree?.memoryFootprint ?? 0
        let mode: String =
            if let d = source.documentSource, case .outline = d.mode { "outline" } else if source.documentSource != nil { "generic" }
            else if let t = loaded.storeSource as? TreeTableSource { t.mode == .generic ? "generic" : "outline" } else { "levels" }
        let stats = StatsJSON(
            file: data.file, format: loaded.formatName, mode: mode, fileBytes: bytes, nodes: nodes, rows: rowCount,
            depth: loaded.tree?.maxDepth() ?? shape?.depth ?? deepest, widestLevel: loaded.tree?.widestLevel() ?? shape?.widest ?? widest,
            loadMilliseconds: (loaded.loadSeconds * 1e5).rounded() / 100,
            storeBytes: storeBytes, bytesPerNode: (Double(storeBytes) / Double(max(1, nodes)) * 10).rounded() / 10,
            peakResidentBytes: rss, textInFile: loaded.tree?.textIsInInput ?? false)
        if output.json {
            try Out.json(stats)
            return
        }
        var out = Out()
        out.line("file          \(stats.file) (\(stats.format), \(stats.fileBytes) bytes)")
        out.line("reading       \(stats.mode)")
        out.line("nodes         \(stats.nodes) (\(stats.rows) rows)")
        out.line("depth         \(stats.depth)")
        out.line("widest level  \(stats.widestLevel)")
        out.line("load time     \(stats.loadMilliseconds) ms")
        out.line("store         \(stats.storeBytes) bytes, \(stats.bytesPerNode) bytes/node" + (stats.textInFile ? " (keys and values: slices of the mapped file)" : ""))
        out.line("peak RSS      \(stats.peakResidentBytes / 1_048_576) MB")
        out.flush()
    }

    /// The statistics of a lazily indexed file: what opening it counted, without walking it (a
    /// walk would index every level, which is what the lazy index is there to avoid).
    func lazyStats(_ lazy: LazyJSONSource, _ loaded: OpenedData) throws {
        let s = lazy.statistics
        let rss = Self.peakResidentBytes()
        struct LazyStatsJSON: Encodable {
            var file: String, format: String, mode: String, fileBytes: Int, indexing: String, topLevelRows: Int, levelsIndexed: Int
            var nodesIndexed: Int, levelBytes: Int, scannedBytes: Int, scanMilliseconds: Double, search: String
            var loadMilliseconds: Double, peakResidentBytes: Int
        }
        let mode: String = if case .outline = lazy.mode { "outline" } else { "generic" }
        let stats = LazyStatsJSON(
            file: data.file, format: loaded.formatName, mode: mode, fileBytes: s.fileBytes, indexing: "lazy", topLevelRows: s.topLevelCount,
            levelsIndexed: s.levels, nodesIndexed: s.nodes, levelBytes: s.levelBytes, scannedBytes: s.scannedBytes,
            scanMilliseconds: (s.scanSeconds * 1e5).rounded() / 100, search: "walk",
            loadMilliseconds: (loaded.loadSeconds * 1e5).rounded() / 100, peakResidentBytes: rss)
        if output.json {
            try Out.json(stats)
            return
        }
        var out = Out()
        out.line("file          \(stats.file) (\(stats.format), \(stats.fileBytes) bytes)")
        out.line("reading       \(stats.mode)")
        out.line("indexing      lazy: each level is indexed when first visited (--index full reads the whole file)")
        out.line("top level     \(stats.topLevelRows) rows (deeper levels are counted when visited)")
        out.line("indexed       \(stats.levelsIndexed) level(s), \(stats.nodesIndexed) ids, \(stats.levelBytes) bytes of offsets")
        out.line("scanned       \(stats.scannedBytes) bytes in \(stats.scanMilliseconds) ms")
        out.line("search        reads the file once per search (no index): time grows with the file, memory does not")
        out.line("load time     \(stats.loadMilliseconds) ms")
        out.line("peak RSS      \(stats.peakResidentBytes / 1_048_576) MB (\(String(format: "%.2f", Double(stats.peakResidentBytes) / Double(max(1, stats.fileBytes))))x the file; mapped pages count)")
        out.flush()
    }

    /// The process's peak resident set size (VmHWM on Linux).
    static func peakResidentBytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            let kb = line.split(separator: " ").compactMap { Int($0) }.first ?? 0
            return kb * 1024
        }
        return 0
    }
}
