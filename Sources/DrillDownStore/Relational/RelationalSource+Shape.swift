import DrillDownCore
import GRDB

extension RelationalSource {
    /// The rows of the tree, the most rows under one parent (the root included) and the depth of
    /// the deepest row, counted in SQL (two aggregate queries a level: each level's rows joined to
    /// their ancestors, so rows outside the tree do not count), not by reading every level a page
    /// at a time.
    /// - Throws: what the database throws.
    public func shape() throws -> (rows: Int, widest: Int, depth: Int) {
        try access.read { db in
            var rows = 0, widest = 0, depth = 0
            for d in levels.indices {
                var chain = "\(levels[d].quotedTable) \(alias(d))"
                for i in stride(from: d - 1, through: 0, by: -1) {
                    guard let parent = levels[i + 1].parent else { break }
                    chain += " JOIN \(levels[i].quotedTable) \(alias(i)) ON \(alias(i + 1)).\(ResolvedLevel.quoted(parent)) = \(alias(i)).\(ResolvedLevel.quoted(levels[i].key))"
                }
                var filter = "TRUE"
                if let parent = levels[0].parent { filter = "\(alias(0)).\(ResolvedLevel.quoted(parent)) IS NULL" }
                let count = Int(try db.integer("SELECT COUNT(*) FROM \(chain) WHERE \(filter)"))
                guard count > 0 else { break }
                rows += count
                depth = d + 1
                if d == 0 {
                    widest = max(widest, count)
                } else if let parent = levels[d].parent {
                    widest = max(widest, Int(try db.integer(
                        "SELECT COALESCE(MAX(n), 0) FROM (SELECT COUNT(*) AS n FROM \(chain) WHERE \(filter) GROUP BY \(alias(d)).\(ResolvedLevel.quoted(parent))) AS g")))
                }
            }
            return (rows, widest, depth)
        }
    }
}
