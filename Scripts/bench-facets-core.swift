// Facet and filter times on a 1M-row document level, in-process, with only DrillDownCore built in
// release (`Scripts/bench-facets.py --core` compiles and runs this; no JSON reader involved: the
// level is built in memory with the shape gen-json.py --songs writes).
import DrillDownCore
import Foundation

let rows = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 1_000_000 : 1_000_000
let genres = ["Rock", "Jazz", "Metal", "Blues", "Soul", "Funk", "Folk", "Pop"]
var state: UInt64 = 33
func next() -> Int {
    state = state &* 6364136223846793005 &+ 1442695040888963407
    return Int(truncatingIfNeeded: state >> 33)
}
let items: [TreeLiteral] = (0 ..< rows).map { i in
    .object([("name", .string("Song \(i)")), ("genre", .string(genres[next() % 8])), ("length", .int(90 + next() % 810)),
             ("year", .int(1950 + next() % 75))])
}
let source = DocumentSource(tree: TreeLiteral.object([("Title", .string("Songs")), ("Rows", .array(items))]).tree)
let level = source.root

func time(_ name: String, _ body: (Presenter) throws -> Int) rethrows {
    var times: [Double] = []
    var result = 0
    for _ in 0 ..< 7 {
        let presenter = Presenter(source: source)
        let t0 = DispatchTime.now().uptimeNanoseconds
        result = try body(presenter)
        times.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6)
    }
    times.sort()
    print(String(format: "  drilldown  %@: best %.1f ms, median %.1f ms (%d)", name, times[0], times[3], result))
}

let filter = try Filter("length>600")
try time("facet genre over \(source.childCount(of: level)) rows") { try $0.facet(of: level, field: "genre").distinct }
try time("where length>600") { try $0.filtering(level, by: filter).rowCount(of: level) }
try time("facet genre where length>600") { try $0.filtering(level, by: filter).facet(of: level, field: "genre").rows }
try time("facet name (1M distinct values), top 10") { try $0.facet(of: level, field: "name").distinct }
