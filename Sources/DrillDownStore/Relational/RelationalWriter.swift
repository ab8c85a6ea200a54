import DrillDownCore
import Foundation
import GRDB

/// Turns ``Change``s into row writes inside one of ``RelationalStore``'s transactions, reading
/// paths through a working snapshot on the same connection (so each change sees the ones
/// before it), and keeps that snapshot's layout in step.
struct RelationalWriter {
    let db: any RelationalConnection
    /// The working snapshot: reads through `db`, its cache updated after every change.
    let source: RelationalSource
    /// The rows written so far, in order.
    var writes: [RowWrite] = []
    /// How the tree's shape changed, in order.
    var layout: [LayoutChange] = []

    init(db: any RelationalConnection, source: RelationalSource) {
        self.db = db
        self.source = source
    }

    var levels: [ResolvedLevel] { source.levels }
    var file: String { source.file }
    var state: RelationalCache.State { source.cache.copy }

    /// Applies one change; returns the path it affected (the new row's, the row's after a move).
    mutating func apply(_ change: Change) throws(EditError) -> TreePath {
        do {
            switch change {
            case .insert(let node, let parent, let index): return try insert(node, under: parent, at: index)
            case .updateTitle(let path, let title):
                let (_, level, _) = try row(at: path)
                return try update(path, column: level.title, to: Scalar(.string, title), named: "title")
            case .setAttribute(let path, let key, let value):
                let (_, level, _) = try row(at: path)
                guard let column = level.column(key) else {
                    throw EditError(
                        "level '\(level.level.name)' (table '\(level.table)') has no column '\(key)'; its columns: \(editableColumns(level).joined(separator: ", "))",
                        at: path)
                }
                return try update(path, column: column.name, to: value ?? Scalar(.null, ""), named: key)
            case .setValue(let path, _):
                let (_, level, _) = try row(at: path)
                throw EditError("a row of table '\(level.table)' has columns, not a single value: set its fields (columns) instead", at: path)
            case .delete(let path): return try delete(path)
            case .move(let path, let parent, let index): return try move(path, to: parent, at: index)
            }
        } catch var error as EditError {
            // A row write's refusal by a constraint names the column; it says where, too.
            if error.path == nil, error.field != nil { error.path = change.path }
            throw error
        } catch let violation as ConstraintViolation {
            throw violation.editError(table: table(of: change), constraints: constraints(of: change), at: change.path)
        } catch {
            throw EditError(StoreError(file: file, error).description, at: change.path)
        }
    }

    /// The level whose table `change` writes (the new row's for an insert), when the path leads to one.
    func level(of change: Change) -> ResolvedLevel? {
        switch change {
        case .insert(_, let parent, _): parent.indices.count < levels.count ? levels[parent.indices.count] : nil
        default: change.path.isRoot || change.path.indices.count > levels.count ? nil : levels[change.path.indices.count - 1]
        }
    }

    func table(of change: Change) -> String { level(of: change)?.table ?? "" }

    func constraints(of change: Change) -> TableConstraints { level(of: change)?.constraints ?? TableConstraints() }

    /// Replays a layout change on the working cache (undo and redo), re-reading rewritten rows.
    mutating func replay(_ change: LayoutChange) throws(EditError) {
        do {
            switch change {
            case .insert(let parent, let index): source.cache.withState { $0.inserted(under: parent, at: index) }
            case .delete(let parent, let index): source.cache.withState { $0.removed(under: parent, at: index) }
            case .move(let from, let to, let index):
                source.cache.withState { state in
                    let subtree = state.removed(under: from.parent, at: from.indices.last ?? 0, keepSubtree: true)
                    state.inserted(under: to, at: index, subtree: subtree)
                }
            case .renumber(let parent): source.cache.withState { $0.forget(under: parent) }
            case .update(let path, let level, let key):
                if let row = try readRow(levels[level], key) { source.cache.withState { $0.updated(path, row: row) } }
            }
        } catch {
            throw EditError(StoreError(file: file, error).description)
        }
    }

    /// Refuses, as a ``EditError/Reason/conflict``, changes made on `shown` (a snapshot older
    /// than the database) whose rows have changed since: a path that now leads to another row,
    /// or a row whose title or columns another writer changed (so a counter pressed on a stale
    /// page never overwrites another writer's press). Rows `shown` had not read are not checked.
    func check(_ changes: [Change], shown: RelationalSource) throws(EditError) {
        for change in changes {
            let (path, whole): (TreePath, Bool) =
                switch change {
                case .insert(_, let parent, _): (parent, false)
                case .updateTitle(let path, _), .setAttribute(let path, _, _), .setValue(let path, _), .delete(let path): (path, true)
                case .move(let path, _, _): (path, true)
                }
            guard !path.isRoot, let before = shown.cachedRow(at: path) else { continue }
            let now: RelationalCache.RowData
            do { now = try row(at: path).2 } catch {
                throw EditError("the row is gone since it was shown (another writer deleted it); nothing was changed", at: path, reason: .conflict)
            }
            guard now.key == before.key else {
                throw EditError(
                    "the row there is another one since it was shown (another writer added or removed rows); nothing was changed",
                    at: path, reason: .conflict)
            }
            if whole, now.title != before.title || now.attributes != before.attributes {
                throw EditError(
                    "row \(ColumnValue.text(now.key)) was changed by another writer since it was shown; nothing was changed (reload to see it as it is now)",
                    at: path, reason: .conflict)
            }
        }
    }

    // MARK: Reading

    /// The node at `path`, its level and its row.
    func row(at path: TreePath) throws -> (NodeID, ResolvedLevel, RelationalCache.RowData) {
        guard !path.isRoot else { throw EditError("the root is not a row of a table", at: path) }
        guard let id = source.node(at: path), let level = source.level(of: id), let row = source.rowData(id) else {
            throw EditError(source.lastError ?? "no node at TreePath \(path)", at: path)
        }
        return (id, level, row)
    }

    /// The columns a change may set: all but the key and parent columns.
    func editableColumns(_ level: ResolvedLevel) -> [String] {
        level.columns.map(\.name).filter { $0 != level.key && $0 != level.parent }
    }

    func readRow(_ level: ResolvedLevel, _ key: DatabaseValue) throws -> RelationalCache.RowData? {
        try db.rows("SELECT \(level.selection) FROM \(level.quotedTable) WHERE \(ResolvedLevel.quoted(level.key)) = ?", [key])
            .first.map { RelationalSource.makeRow($0, level) }
    }

    /// The whole row, every column (and `rowid` when it is the key), for putting it back.
    func image(_ level: ResolvedLevel, _ key: DatabaseValue) throws -> [String: DatabaseValue]? {
        let names = (level.key == "rowid" ? ["rowid"] : []) + level.columns.map(\.name)
        guard let row = try db.rows(
                "SELECT \(names.map(level.read).joined(separator: ", ")) FROM \(level.quotedTable) WHERE \(ResolvedLevel.quoted(level.key)) = ?", [key]).first
        else { return nil }
        var image: [String: DatabaseValue] = [:]
        for (column, value) in zip(names, row) { image[column] = value }
        return image
    }

    /// The position of the row `key` among its parent's rows (`siblings` of them besides it), by the level's order.
    func position(of key: DatabaseValue, in level: ResolvedLevel, parentKey: DatabaseValue?, siblings: Int) throws -> Int {
        guard let row = try readRow(level, key) else { return siblings }
        let parent: [DatabaseValue] = level.filtersByParent ? [parentKey ?? .null] : []
        let after = Keyset.comparison(level.order, row.order, after: true, dialect: db.dialect)
        let later = try !db.rows(
            "SELECT 1 FROM \(level.quotedTable) WHERE \(level.parentFilter) AND \(after.sql) LIMIT 1", parent + after.arguments).isEmpty
        guard later else { return siblings }
        let before = Keyset.comparison(level.order, row.order, after: false, dialect: db.dialect)
        return Int(try db.integer(
            "SELECT COUNT(*) FROM \(level.quotedTable) WHERE \(level.parentFilter) AND \(before.sql)", parent + before.arguments))
    }

    /// `scalar` converted for `column`, or an error naming the column and what it requires: its
    /// type, a value when it is NOT NULL, and what its CHECK constraints say (the simple ones,
    /// ``ColumnRule``; the database checks the rest).
    func value(_ scalar: Scalar, for column: ResolvedLevel.Column, in level: ResolvedLevel, at path: TreePath) throws -> DatabaseValue {
        // SQLite's DATE and TIMESTAMP columns (NUMERIC affinity) hold dates as ISO 8601 text.
        let isDate = ResolvedLevel.fieldType(column) == .date && [.string, .date].contains(scalar.kind) && column.affinity != .text
        let converted = isDate && ISO8601Text.date(scalar.text) != nil ? .success(scalar.text.databaseValue) : ColumnValue.value(scalar, affinity: column.affinity)
        switch converted {
        case .success(let value):
            if value.isNull, column.notNull {
                throw EditError("'\(column.name)' is required: column '\(column.name)' of table '\(level.table)' is NOT NULL; nothing was changed", at: path, field: column.name)
            }
            for rule in level.constraints.rules(for: column.name) where !rule.admits(value) {
                let text = ColumnValue.text(value)
                let shown = if case .string = value.storage { "'\(text)'" } else { text }
                throw EditError("'\(column.name)' must be \(rule.requirement), not \(shown) (CHECK \(rule.check)); nothing was changed", at: path, field: column.name)
            }
            return value
        case .failure(let mismatch):
            throw EditError(
                "column '\(column.name)' of table '\(level.table)' is \(column.type.isEmpty ? "untyped" : column.type): expected \(mismatch.expected), found '\(mismatch.found)'",
                at: path, field: column.name)
        }
    }

    // MARK: Writing

    /// Writes `columns` of the row `key` and records the write.
    mutating func write(_ level: ResolvedLevel, key: DatabaseValue, _ columns: [String: DatabaseValue]) throws {
        guard !columns.isEmpty else { return }
        let names = Array(columns.keys).sorted()
        let sql = "SELECT \(names.map(level.read).joined(separator: ", ")) FROM \(level.quotedTable) WHERE \(ResolvedLevel.quoted(level.key)) = ?"
        let old = try db.rows(sql, [key]).first
        var before: [String: DatabaseValue] = [:]
        for (i, name) in names.enumerated() { before[name] = old?[i] ?? .null }
        let write = RowWrite(level: level.depth, key: key, before: before, after: columns)
        try write.perform(in: db, levels: levels, file: file, verified: old != nil)
        writes.append(write)
    }

    mutating func insert(_ node: NewNode, under parent: TreePath, at index: Int?) throws -> TreePath {
        guard let parentID = source.node(at: parent) else { throw EditError("no node at TreePath \(parent)", at: parent) }
        let depth = parent.indices.count
        guard depth < levels.count else {
            throw EditError("rows of level '\(levels[depth - 1].level.name)' have no children; there is no level below it", at: parent)
        }
        let level = levels[depth]
        guard !level.isView else { throw EditError("level '\(level.level.name)' reads the view '\(level.table)', which cannot be written", at: parent) }
        let parentKey = depth > 0 ? try row(at: parent).2.key : nil
        let siblings = source.childCount(of: parentID)
        var values: [String: DatabaseValue] = [:]
        if let column = level.parent { values[column] = parentKey ?? .null }
        guard let titleColumn = level.column(level.title) else { throw EditError("the title column '\(level.title)' cannot be written", at: parent) }
        values[titleColumn.name] = try value(Scalar(.string, node.title), for: titleColumn, in: level, at: parent)
        for attribute in node.attributes {
            guard let column = level.column(attribute.key) else {
                if attribute.key.lowercased() == "kind" { continue }
                throw EditError(
                    "level '\(level.level.name)' (table '\(level.table)') has no column '\(attribute.key)'; its columns: \(editableColumns(level).joined(separator: ", "))",
                    at: parent)
            }
            guard column.name != level.parent else {
                throw EditError("column '\(column.name)' is the parent column: it is set by where the row is added", at: parent)
            }
            values[column.name] = try value(attribute.value, for: column, in: level, at: parent)
        }
        for (name, text) in level.level.defaults {
            guard let column = level.column(name), values[column.name] == nil else { continue }
            values[column.name] = try value(Scalar(.string, text), for: column, in: level, at: parent)
        }
        if let position = level.positionColumn, values[position] == nil {
            values[position] = try place(in: level, under: parent, parentKey: parentKey, excluding: nil, at: index, siblings: siblings)
        }
        let missing = level.columns.filter { $0.notNull && !$0.hasDefault && !$0.isRowID && values[$0.name] == nil }.map(\.name)
        guard missing.isEmpty else {
            let names = missing.map { "'\($0)'" }.joined(separator: ", ")
            throw EditError(
                "cannot add a row to '\(level.table)': column\(missing.count == 1 ? "" : "s") \(names) \(missing.count == 1 ? "is" : "are") NOT NULL without a default; give \(missing.count == 1 ? "it a value" : "them values") or add \(missing.count == 1 ? "it" : "them") to the level's defaults: in the schema (e.g. defaults: { \(missing[0]): … }); nothing was changed",
                at: parent, field: missing[0])
        }
        let names = Array(values.keys).sorted()
        let sql = "INSERT INTO \(level.quotedTable) (\(names.map(ResolvedLevel.quoted).joined(separator: ", "))) VALUES (\(names.map { _ in "?" }.joined(separator: ", "))) RETURNING \(level.readKey)"
        let key = try db.value(sql, names.map { values[$0] ?? .null }) ?? .null
        writes.append(RowWrite(level: depth, key: key, before: nil, after: try image(level, key)))
        let at = try position(of: key, in: level, parentKey: parentKey, siblings: siblings)
        source.cache.withState { $0.inserted(under: parent, at: at) }
        layout.append(.insert(parent: parent, index: at))
        return TreePath(parent.indices + [at])
    }

    /// The position-column value that puts a row at `index` (`nil`: last) among its parent's rows
    /// (other than `excluding`), renumbering the rows after it when it lands between two.
    mutating func place(
        in level: ResolvedLevel, under parent: TreePath, parentKey: DatabaseValue?, excluding: DatabaseValue?, at index: Int?, siblings: Int
    ) throws -> DatabaseValue {
        guard let column = level.positionColumn else { return .null }
        let quoted = ResolvedLevel.quoted(column), keyColumn = ResolvedLevel.quoted(level.key)
        var arguments: [DatabaseValue] = level.filtersByParent ? [parentKey ?? .null] : []
        var filter = level.parentFilter
        if let excluding {
            filter += " AND \(keyColumn) \(db.dialect.isNotSame) ?"
            arguments.append(excluding)
        }
        if index == nil || (index ?? 0) >= siblings {
            let last = try db.integer("SELECT MAX(\(quoted)) FROM \(level.quotedTable) WHERE \(filter)", arguments)
            return (last + 1).databaseValue
        }
        let rows = try db.rows(
            "SELECT \(level.readKey), \(quoted) FROM \(level.quotedTable) WHERE \(filter) ORDER BY \(Keyset.orderBy(level.order, reversed: false))", arguments)
        let target = max(0, min(index ?? rows.count, rows.count))
        let base: Int64 = rows.first.flatMap { Int64.fromDatabaseValue($0[1]) }.map { min(max($0, 0), 1) } ?? 1
        var renumbered = false
        for (i, row) in rows.enumerated() {
            let wanted = base + Int64(i >= target ? i + 1 : i)
            if Int64.fromDatabaseValue(row[1]) != wanted {
                try write(level, key: row[0], [column: wanted.databaseValue])
                renumbered = true
            }
        }
        if renumbered {
            source.cache.withState { $0.forget(under: parent) }
            layout.append(.renumber(parent: parent))
        }
        return (base + Int64(target)).databaseValue
    }

    mutating func update(_ path: TreePath, column: String, to scalar: Scalar, named: String) throws -> TreePath {
        let (id, level, row) = try row(at: path)
        guard !level.isView else { throw EditError("level '\(level.level.name)' reads the view '\(level.table)', which cannot be written", at: path) }
        guard let described = level.column(column) else { throw EditError("column '\(column)' cannot be written", at: path) }
        guard described.name != level.key else {
            throw EditError("column '\(described.name)' is the key of table '\(level.table)'; it cannot be changed here", at: path)
        }
        guard described.name != level.parent else {
            throw EditError("column '\(described.name)' is the parent column; move the row instead", at: path)
        }
        try write(level, key: row.key, [described.name: try value(scalar, for: described, in: level, at: path)])
        guard let parentID = source.parent(of: id), let old = path.indices.last else { return path }
        if level.order.contains(where: { $0.column == described.name }) {
            let parentKey = parentID == source.root ? nil : source.rowData(parentID)?.key
            let at = try position(of: row.key, in: level, parentKey: parentKey, siblings: source.childCount(of: parentID) - 1)
            if at != old {
                source.cache.withState { state in
                    let subtree = state.removed(under: path.parent, at: old, keepSubtree: true)
                    state.inserted(under: path.parent, at: at, subtree: subtree)
                }
                layout.append(.move(from: path, to: path.parent, index: at))
                if let fresh = try readRow(level, row.key) {
                    let moved = TreePath(path.parent.indices + [at])
                    source.cache.withState { $0.updated(moved, row: fresh) }
                    layout.append(.update(moved, level: level.depth, key: row.key))
                }
                return TreePath(path.parent.indices + [at])
            }
        }
        if let fresh = try readRow(level, row.key) { source.cache.withState { $0.updated(path, row: fresh) } }
        layout.append(.update(path, level: level.depth, key: row.key))
        return path
    }

    mutating func delete(_ path: TreePath) throws -> TreePath {
        let (_, level, row) = try row(at: path)
        guard !level.isView else { throw EditError("level '\(level.level.name)' reads the view '\(level.table)', which cannot be written", at: path) }
        // The keys of the row and of its descendants, level by level.
        var keysByLevel: [[DatabaseValue]] = [[row.key]]
        for depth in (level.depth + 1) ..< levels.count {
            let child = levels[depth]
            guard let parent = child.parent, let above = keysByLevel.last, !above.isEmpty else { break }
            var keys: [DatabaseValue] = []
            for chunk in stride(from: 0, to: above.count, by: 10_000).map({ Array(above[$0 ..< min($0 + 10_000, above.count)]) }) {
                keys += try db.rows(
                    "SELECT \(child.readKey) FROM \(child.quotedTable) WHERE \(ResolvedLevel.quoted(parent)) IN (\(chunk.map { _ in "?" }.joined(separator: ", ")))",
                    chunk).compactMap(\.first)
            }
            keysByLevel.append(keys)
        }
        // Deepest first, so foreign keys never point at a deleted row.
        for (offset, keys) in keysByLevel.enumerated().reversed() {
            let depth = level.depth + offset
            for key in keys {
                guard let image = try image(levels[depth], key) else { continue }
                let write = RowWrite(level: depth, key: key, before: image, after: nil)
                try write.perform(in: db, levels: levels, file: file)
                writes.append(write)
            }
        }
        let index = path.indices.last ?? 0
        source.cache.withState { $0.removed(under: path.parent, at: index) }
        layout.append(.delete(parent: path.parent, index: index))
        return path
    }

    mutating func move(_ path: TreePath, to newParent: TreePath, at index: Int?) throws -> TreePath {
        let (_, level, row) = try row(at: path)
        guard !level.isView else { throw EditError("level '\(level.level.name)' reads the view '\(level.table)', which cannot be written", at: path) }
        guard newParent.indices.count == path.indices.count - 1 else {
            let above = level.depth > 0 ? "a row of level '\(levels[level.depth - 1].level.name)'" : "the root"
            throw EditError("a row of level '\(level.level.name)' can only move under \(above)", at: path)
        }
        guard let targetID = source.node(at: newParent) else { throw EditError("no node at TreePath \(newParent)", at: newParent) }
        let sameParent = newParent == path.parent
        let targetKey = newParent.isRoot ? nil : try self.row(at: newParent).2.key
        let siblings = source.childCount(of: targetID) - (sameParent ? 1 : 0)
        var columns: [String: DatabaseValue] = [:]
        if !sameParent, let parent = level.parent { columns[parent] = targetKey ?? .null }
        if level.positionColumn != nil {
            columns[level.positionColumn ?? ""] = try place(
                in: level, under: newParent, parentKey: targetKey, excluding: row.key, at: index, siblings: siblings)
        } else if sameParent {
            let order = level.level.order.isEmpty ? "its key" : level.level.order.joined(separator: ", ")
            throw EditError(
                "level '\(level.level.name)' is ordered by \(order), so its rows keep that order; a level whose order: is one integer column (such as track) can be reordered",
                at: path)
        }
        try write(level, key: row.key, columns)
        let at = try position(of: row.key, in: level, parentKey: targetKey, siblings: siblings)
        let old = path.indices.last ?? 0
        source.cache.withState { state in
            let subtree = state.removed(under: path.parent, at: old, keepSubtree: true)
            state.inserted(under: newParent, at: at, subtree: subtree)
        }
        layout.append(.move(from: path, to: newParent, index: at))
        return TreePath(newParent.indices + [at])
    }
}
