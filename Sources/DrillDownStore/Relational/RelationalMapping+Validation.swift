
extension RelationalMapping {
    /// Checks the mapping against the open database and returns the chain of levels from the root down.
    ///
    /// Every table, title, key, parent and order column must exist; every level below the first
    /// needs a parent column; following `children:` must not come back to a level (a cycle).
    /// - Complexity: O(levels) schema queries.
    func resolve(in db: any RelationalConnection, file: String) throws -> [ResolvedLevel] {
        let chain = try chain(file: file)
        let tables = try db.relations()
        let hasRowID = db.dialect == .sqlite
        var resolved: [ResolvedLevel] = []
        for (depth, index) in chain.enumerated() {
            let level = levels[index]
            func fail(_ problem: MappingError.Problem, _ column: String?, _ message: String) -> MappingError {
                MappingError(problem, file: file, level: index + 1, levelName: level.name, table: level.table, column: column, message: message)
            }
            guard let table = tables.first(where: { $0.name.caseInsensitiveCompare(level.table) == .orderedSame }) else {
                let names = tables.filter { !$0.name.hasPrefix("sqlite_") }.map(\.name).joined(separator: ", ")
                throw fail(.missingTable, nil, "table '\(level.table)' does not exist; tables: \(names.isEmpty ? "none" : names)")
            }
            let described = try db.columns(of: table.name, isView: table.isView)
            let columns = described.map(\.name)
            func column(_ name: String, _ role: String, _ problem: MappingError.Problem = .missingColumn) throws -> String {
                if let found = columns.first(where: { $0.caseInsensitiveCompare(name) == .orderedSame }) { return found }
                if hasRowID, !table.isView, ["rowid", "oid", "_rowid_"].contains(name.lowercased()) { return "rowid" }
                throw fail(problem, name, "column '\(name)' (\(role)) does not exist; columns: \(columns.joined(separator: ", "))")
            }
            let title = try column(level.title, "title")
            let key: String
            if let named = level.key {
                key = try column(named, "key")
            } else if let id = columns.first(where: { $0.lowercased() == "id" }) {
                key = id
            } else if hasRowID, !table.isView {
                key = "rowid"
            } else {
                let what = table.isView ? "view" : "table"
                throw fail(.missingColumn, "id", "\(what) '\(table.name)' has no 'id' column; name its key column with 'key:'")
            }
            var parent: String?
            if let named = level.parent {
                parent = try column(named, "parent", .missingParentKey)
            } else if depth > 0 {
                let above = levels[chain[depth - 1]]
                throw fail(
                    .missingParentKey, nil,
                    "no 'parent' column names the '\(above.name)' row each row belongs to (e.g. parent: \(above.table.lowercased().hasSuffix("s") ? String(above.table.dropLast()) : above.table)_id)")
            }
            var order: [ResolvedLevel.OrderTerm] = []
            for term in level.order {
                let words = term.split(separator: " ").map(String.init)
                let descending = words.count == 2 && words[1].lowercased() == "desc"
                guard words.count == 1 || (words.count == 2 && ["asc", "desc"].contains(words[1].lowercased())) else {
                    throw fail(.missingColumn, term, "order '\(term)' must be a column, optionally followed by ASC or DESC")
                }
                order.append(.init(column: try column(words[0], "order"), descending: descending))
            }
            for name in level.defaults.keys where !columns.contains(where: { $0.caseInsensitiveCompare(name) == .orderedSame }) {
                throw fail(.missingColumn, name, "column '\(name)' (in defaults) does not exist; columns: \(columns.joined(separator: ", "))")
            }
            if level.sort != nil, db.dialect == .sqlite, let first = order.first,
                first.column == title || described.first(where: { $0.name == first.column })?.affinity == .text
            {
                order[0].collation = SortCollation.name
            }
            var positionColumn: String?
            if level.sort == nil, order.count == 1, !order[0].descending, let c = described.first(where: { $0.name == order[0].column }),
                c.affinity == .integer
            {
                positionColumn = c.name
            }
            let skipped = Set([title, key, parent].compactMap { $0?.lowercased() })
            let attributes = described.filter { !skipped.contains($0.name.lowercased()) }
            var resolvedLevel = ResolvedLevel(
                level: level, depth: depth, table: table.name, isView: table.isView, key: key, title: title, parent: parent,
                attributeColumns: attributes.map(\.name), attributeAffinities: attributes.map(\.affinity), columns: described,
                order: order + [.init(column: key, descending: false)], positionColumn: positionColumn, filtersByParent: depth > 0,
                dialect: db.dialect)
            if !table.isView { resolvedLevel.constraints = try db.constraints(of: table.name, columns: described) }
            resolvedLevel.fields = resolvedLevel.storedFields(newRow: false)
            resolvedLevel.newRowFields = resolvedLevel.storedFields(newRow: true)
            resolved.append(resolvedLevel)
        }
        return resolved
    }

    /// The order in which levels nest: list indices from the first level down, following `children:`.
    func chain(file: String) throws(MappingError) -> [Int] {
        guard !levels.isEmpty else {
            throw MappingError(.invalid, file: file, level: 0, levelName: "levels", table: "", message: "the mapping has no levels")
        }
        for (i, level) in levels.enumerated() {
            if let j = levels.firstIndex(where: { $0.name == level.name }), j != i {
                throw MappingError(
                    .invalid, file: file, level: i + 1, levelName: level.name, table: level.table,
                    message: "level \(j + 1) has the same name; give one of them another 'name:'")
            }
        }
        var chain = [0]
        var current = 0
        while true {
            let level = levels[current]
            let next: Int
            if let name = level.children {
                guard let found = levels.firstIndex(where: { $0.name == name }) else {
                    throw MappingError(
                        .unknownLevel, file: file, level: current + 1, levelName: level.name, table: level.table,
                        message: "children names level '\(name)', which is not defined; levels: \(levels.map(\.name).joined(separator: ", "))")
                }
                next = found
            } else if current + 1 < levels.count, !chain.contains(current + 1) {
                next = current + 1
            } else {
                break
            }
            if let start = chain.firstIndex(of: next) {
                let loop = (chain[start...] + [next]).map { "'\(levels[$0].name)'" }.joined(separator: " → ")
                let what = next == current ? "a level that contains itself" : "a cycle"
                throw MappingError(
                    .cycle, file: file, level: current + 1, levelName: level.name, table: level.table, column: level.parent,
                    message: "its children lead back: \(loop) is \(what); the last level must have no children")
            }
            chain.append(next)
            current = next
        }
        if let unreached = levels.indices.first(where: { !chain.contains($0) }) {
            let level = levels[unreached]
            throw MappingError(
                .invalid, file: file, level: unreached + 1, levelName: level.name, table: level.table,
                message: "no level has it as children, so it is never shown")
        }
        return chain
    }

}

import Foundation
