import DrillDownCore
import GRDB

/// One row a step wrote, as it was before and after (whole rows for inserts and deletes, the
/// changed columns for updates): a step is undone by writing every `before` back, in reverse.
struct RowWrite: Sendable {
    /// The level whose table the row is in.
    var level: Int
    /// The row's key.
    var key: DatabaseValue
    /// The row before the step; `nil` when the step inserted it.
    var before: [String: DatabaseValue]?
    /// The row after the step; `nil` when the step deleted it.
    var after: [String: DatabaseValue]?

    /// The write that takes this one back.
    var inverse: RowWrite { RowWrite(level: level, key: key, before: after, after: before) }

    /// Checks that the row is as `before` says (so an undo never overwrites another writer's
    /// change), then writes `after`. `verified`: the caller read the row as `before` in this
    /// transaction just now, so it is not read again.
    func perform(in db: any RelationalConnection, levels: [ResolvedLevel], file: String, verified: Bool = false) throws(EditError) {
        let level = levels[self.level]
        let table = level.quotedTable
        let keyColumn = ResolvedLevel.quoted(level.key)
        do {
            if !verified {
                let columns = (before ?? after).map { Array($0.keys).sorted() } ?? []
                let sql = "SELECT \(columns.isEmpty ? "1" : columns.map(level.read).joined(separator: ", ")) FROM \(table) WHERE \(keyColumn) = ?"
                let current = try db.rows(sql, [key]).first
                let matches: Bool
                if let before {
                    matches = current.map { row in columns.indices.allSatisfy { row[$0] == before[columns[$0]] } } ?? false
                } else {
                    matches = current == nil
                }
                guard matches else {
                    throw EditError("\(file): row \(ColumnValue.text(key)) of table '\(level.table)' was changed by another writer since; not changed")
                }
            }
            switch (before, after) {
            case (_, nil):
                try db.execute("DELETE FROM \(table) WHERE \(keyColumn) = ?", [key])
            case (nil, let row?):
                let names = Array(row.keys).sorted()
                let sql = "INSERT INTO \(table) (\(names.map(ResolvedLevel.quoted).joined(separator: ", "))) VALUES (\(names.map { _ in "?" }.joined(separator: ", ")))"
                try db.execute(sql, names.map { row[$0] ?? .null })
            case (_?, let row?):
                let names = Array(row.keys).sorted()
                let sql = "UPDATE \(table) SET \(names.map { ResolvedLevel.quoted($0) + " = ?" }.joined(separator: ", ")) WHERE \(keyColumn) = ?"
                try db.execute(sql, names.map { row[$0] ?? .null } + [key])
            }
        } catch let error as EditError {
            throw error
        } catch let violation as ConstraintViolation {
            throw violation.editError(table: level.table, constraints: level.constraints, at: nil)
        } catch {
            throw EditError(StoreError(file: file, error).description)
        }
    }
}

/// How a step changed the shape of the tree, replayed on a snapshot's cache (forwards, or
/// inverted backwards for undo) so pages, anchors and counts elsewhere are kept.
enum LayoutChange: Sendable {
    /// A row appeared at `index` under `parent`.
    case insert(parent: TreePath, index: Int)
    /// The row at `index` under `parent` went, with its subtree.
    case delete(parent: TreePath, index: Int)
    /// A row left `from` and arrived at `index` under `to` (a path after it left), with its subtree.
    case move(from: TreePath, to: TreePath, index: Int)
    /// The row at the path was rewritten in place.
    case update(TreePath, level: Int, key: DatabaseValue)
    /// The rows under `parent` were renumbered (their order values changed).
    case renumber(parent: TreePath)

    var inverse: LayoutChange {
        switch self {
        case .insert(let parent, let index): .delete(parent: parent, index: index)
        case .delete(let parent, let index): .insert(parent: parent, index: index)
        case .move(let from, let to, let index):
            .move(from: TreePath(to.indices + [index]), to: from.parent, index: from.indices.last ?? 0)
        case .update, .renumber: self
        }
    }
}

/// One undoable step of a ``RelationalStore``.
struct RelationalStep: Sendable {
    var changes: [Change]
    var paths: [TreePath]
    var writes: [RowWrite]
    var layout: [LayoutChange]
    /// What the step did, in words (see ``StepSummary``).
    var summary = ""
    /// The number of its record in the history, when one was written.
    var historyID: Int64?

    /// The step as the model sees it.
    var edit: EditStep { EditStep(changes: changes, paths: paths, summary: summary) }
}
