import DrillDownCore
import GRDB

/// ``RelationalConnection`` on an open GRDB `Database` (statements cached by GRDB).
struct SQLiteRelationalConnection: RelationalConnection {
    let db: Database

    var dialect: SQLDialect { .sqlite }

    func rows(_ sql: String, _ arguments: [DatabaseValue]) throws -> [[DatabaseValue]] {
        do { return try fetch(sql, arguments) } catch { throw ConstraintViolation(sqlite: error) ?? error }
    }

    func fetch(_ sql: String, _ arguments: [DatabaseValue]) throws -> [[DatabaseValue]] {
        let cursor = try GRDB.Row.fetchCursor(db.cachedStatement(sql: sql), arguments: StatementArguments(arguments))
        var rows: [[DatabaseValue]] = []
        while let row = try cursor.next() {
            rows.append((0 ..< row.count).map { row[$0] as DatabaseValue })
        }
        return rows
    }

    func execute(_ sql: String, _ arguments: [DatabaseValue]) throws {
        do { try db.cachedStatement(sql: sql).execute(arguments: StatementArguments(arguments)) } catch {
            throw ConstraintViolation(sqlite: error) ?? error
        }
    }

    func relations() throws -> [(name: String, isView: Bool)] {
        try GRDB.Row.fetchAll(db, sql: "SELECT name, type FROM sqlite_master WHERE type IN ('table', 'view') ORDER BY name")
            .map { (name: $0[0] as String, isView: ($0[1] as String) == "view") }
    }

    func columns(of relation: String, isView: Bool) throws -> [RelationalColumn] {
        let rowID = isView ? nil : try db.primaryKey(relation).rowIDColumn
        return try db.columns(in: relation).map { c in
            RelationalColumn(
                name: c.name, type: c.type, affinity: ColumnValue.affinity(of: c.type), notNull: c.isNotNull,
                hasDefault: c.defaultValueSQL != nil, isRowID: rowID.map { $0.caseInsensitiveCompare(c.name) == .orderedSame } ?? false)
        }
    }

    func constraints(of relation: String, columns: [RelationalColumn]) throws -> TableConstraints {
        var constraints = TableConstraints()
        for column in try db.columns(in: relation) { constraints.defaults[column.name] = column.defaultValueSQL }
        let sql = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", arguments: [relation]) ?? ""
        constraints.checks = TableCheck.all(inCreateTable: sql, columns: columns.map(\.name))
        constraints.references = try db.foreignKeys(on: relation).map { .init(columns: $0.originColumns, table: $0.destinationTable) }
        return constraints
    }

    /// The table a tree table keeps (``SQLiteHistoryLog``).
    func prepareHistory() throws { try db.execute(sql: SQLiteHistoryLog.createTable) }

    func sendHistory(_ record: HistoryRecord) throws -> () throws -> Int64 {
        try SQLiteHistoryLog.insert(record, into: db)
        let id = db.lastInsertedRowID
        return { id }
    }
}
