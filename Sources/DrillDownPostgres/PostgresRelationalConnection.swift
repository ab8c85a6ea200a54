import DrillDownStore
import Foundation
import GRDB
import Logging
import NIOConcurrencyHelpers
import NIOCore
import PostgresNIO

/// ``DrillDownStore/RelationalConnection`` on a PostgreSQL connection: the relational mapping's
/// SQL (written with `?` parameters) runs with `$n` parameters, every value sent as text of no
/// declared type so the server reads it as the column's own type (an integer, a date, an enum),
/// and results decoded into GRDB `DatabaseValue`s. Columns of types without a binary decoder here
/// (dates, numerics, UUIDs, JSON, enums …) are read cast to text (``DrillDownStore/RelationalColumn/read``).
struct PostgresRelationalConnection: RelationalConnection {
    let connection: PostgresConnection
    let logger: Logger
    /// The database, for messages.
    let location: PostgresLocation
    /// Why a statement sent without waiting for its answer (``sendHistory(_:)``) failed, set on
    /// the connection's event loop before any later answer comes (shared by copies).
    let unanswered = NIOLockedValueBox<(any Error)?>(nil)
    /// The mapped tables whose steps' history records it writes (``PostgresHistoryLog/scope``).
    var scope = ""

    init(_ connection: PostgresConnection, of session: PostgresSession) {
        self.connection = connection
        logger = session.logger
        location = session.location
    }

    var dialect: SQLDialect { .postgres }

    /// Types whose binary form is decoded here; others are read as text.
    static let decoded: Set<String> = ["int2", "int4", "int8", "float4", "float8", "bool", "bytea", "text", "varchar", "bpchar", "name"]

    /// The server's errors come out as ``PostgresStoreError``s, which say what the server said
    /// (postgres-nio's own descriptions hide it) and whether it was unreachable.
    func rows(_ sql: String, _ arguments: [DatabaseValue]) throws -> [[DatabaseValue]] {
        do { return try connection.rows(Self.query(sql, arguments), logger).map { row in try row.map(Self.value) } } catch let error as PSQLError {
            throw failure(error)
        }
    }

    func execute(_ sql: String, _ arguments: [DatabaseValue]) throws {
        do { try connection.execute(Self.query(sql, arguments), logger) } catch let error as PSQLError {
            throw failure(error)
        }
    }

    /// The error to report for the server's `error`. A statement after a failed one sent without
    /// waiting fails as "current transaction is aborted": the earlier one's error says why.
    func failure(_ error: PSQLError) -> any Error {
        if let earlier = unanswered.withLockedValue({ $0 }) { return earlier }
        return Self.violation(error) ?? PostgresStoreError(location, error)
    }

    /// The server's refusal of a write that breaks a NOT NULL, CHECK, UNIQUE or FOREIGN KEY
    /// constraint (SQLSTATE 23502, 23514, 23505, 23503), with the columns and constraint it
    /// names; `nil` for any other error.
    static func violation(_ error: PSQLError) -> ConstraintViolation? {
        guard error.code == .server, let info = error.serverInfo, let state = info[.sqlState], state.hasPrefix("23") else { return nil }
        // "Key (a, b)=(1, 2) already exists." / "… is not present in table "x"." / "… is still referenced from table "y"."
        let detail = info[.detail] ?? ""
        var columns: [String] = []
        if detail.hasPrefix("Key ("), let close = detail.range(of: ")=(") {
            columns = detail[detail.index(detail.startIndex, offsetBy: 5) ..< close.lowerBound].split(separator: ",").map {
                $0.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            }
        }
        switch state {
        case "23502": return ConstraintViolation(.notNull, columns: info[.columnName].map { [$0] } ?? [])
        case "23514": return ConstraintViolation(.check, constraint: info[.constraintName])
        case "23505": return ConstraintViolation(.unique, columns: columns, constraint: info[.constraintName])
        case "23503":
            var referencedBy: String?
            if let from = detail.range(of: "is still referenced from table \"") {
                referencedBy = String(detail[from.upperBound...].prefix { $0 != "\"" })
            }
            return ConstraintViolation(.foreignKey, columns: referencedBy == nil ? columns : [], constraint: info[.constraintName], referencedBy: referencedBy)
        default: return nil  // an exclusion constraint, a trigger's error: the server's message is passed on
        }
    }

    func relations() throws -> [(name: String, isView: Bool)] {
        try rows(
            """
            SELECT c.relname::text, c.relkind IN ('v', 'm') FROM pg_class c
            WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f') AND pg_table_is_visible(c.oid)
              AND c.relnamespace NOT IN ('pg_catalog'::regnamespace, 'information_schema'::regnamespace)
            ORDER BY 1
            """, []
        ).map { (name: ColumnValue.text($0[0]), isView: $0[1] == 1.databaseValue) }
    }

    func columns(of relation: String, isView: Bool) throws -> [RelationalColumn] {
        let quoted = "\"" + relation.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        return try rows(
            """
            SELECT a.attname::text, format_type(a.atttypid, a.atttypmod), t.typname::text, a.attnotnull,
                   a.atthasdef OR a.attidentity <> '' OR a.attgenerated <> ''
            FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid
            WHERE a.attrelid = ?::regclass AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum
            """, [quoted.databaseValue]
        ).map { row in
            let name = ColumnValue.text(row[0]), typeName = ColumnValue.text(row[2])
            let quotedName = "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            return RelationalColumn(
                name: name, type: ColumnValue.text(row[1]), affinity: Self.affinity(typeName), notNull: row[3] == 1.databaseValue,
                hasDefault: row[4] == 1.databaseValue, read: Self.decoded.contains(typeName) ? quotedName : quotedName + "::text")
        }
    }

    /// Defaults from `pg_attrdef`, CHECKs and foreign keys from `pg_constraint`.
    func constraints(of relation: String, columns: [RelationalColumn]) throws -> TableConstraints {
        let table = ("\"" + relation.replacingOccurrences(of: "\"", with: "\"\"") + "\"").databaseValue
        var constraints = TableConstraints()
        for row in try rows(
            """
            SELECT a.attname::text, pg_get_expr(d.adbin, d.adrelid) FROM pg_attrdef d
            JOIN pg_attribute a ON a.attrelid = d.adrelid AND a.attnum = d.adnum WHERE d.adrelid = ?::regclass
            """, [table])
        {
            constraints.defaults[ColumnValue.text(row[0])] = ColumnValue.text(row[1])
        }
        func names(_ value: DatabaseValue) -> [String] { ColumnValue.text(value).split(separator: "\u{1F}").map(String.init) }
        let columnNames = columns.map(\.name)
        for row in try rows(
            """
            SELECT c.conname::text, c.contype::text, pg_get_constraintdef(c.oid),
                   array_to_string(ARRAY(SELECT a.attname::text FROM unnest(c.conkey) WITH ORDINALITY k(n, o)
                       JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n ORDER BY k.o), chr(31)),
                   (SELECT r.relname::text FROM pg_class r WHERE r.oid = c.confrelid)
            FROM pg_constraint c WHERE c.conrelid = ?::regclass AND c.contype IN ('c', 'f') ORDER BY c.conname
            """, [table])
        {
            if ColumnValue.text(row[1]) == "c" {
                if let check = TableCheck(name: ColumnValue.text(row[0]), definition: ColumnValue.text(row[2]), columns: columnNames) {
                    constraints.checks.append(check)
                }
            } else {
                constraints.references.append(.init(columns: names(row[3]), table: ColumnValue.text(row[4])))
            }
        }
        return constraints
    }

    /// How values of the PostgreSQL type `name` (`pg_type.typname`) are converted.
    static func affinity(_ name: String) -> ColumnValue.Affinity {
        switch name {
        case "int2", "int4", "int8", "oid": .integer
        case "float4", "float8": .real
        case "numeric", "money": .numeric
        case "bool": .boolean
        case "bytea": .blob
        default: .text
        }
    }

    /// `sql` with its `?` parameters (outside quotes) numbered `$1`, `$2`, … and `arguments` bound.
    static func query(_ sql: String, _ arguments: [DatabaseValue]) -> PostgresQuery {
        var text = ""
        text.reserveCapacity(sql.utf8.count + 8)
        var quote: Character?
        var n = 0
        for c in sql {
            if let open = quote {
                if c == open { quote = nil }
                text.append(c)
            } else if c == "'" || c == "\"" {
                quote = c
                text.append(c)
            } else if c == "?" {
                n += 1
                text += "$\(n)"
            } else {
                text.append(c)
            }
        }
        var bindings = PostgresBindings(capacity: arguments.count)
        for argument in arguments {
            switch argument.storage {
            case .null: bindings.appendNull()
            case .int64(let i): bindings.append(Untyped(String(i)))
            case .double(let d): bindings.append(Untyped(d.isFinite ? "\(d)" : d.isNaN ? "NaN" : d > 0 ? "Infinity" : "-Infinity"))
            case .string(let s): bindings.append(Untyped(s))
            case .blob(let data): bindings.append(Untyped("\\x" + data.map { String(format: "%02x", $0) }.joined()))
            }
        }
        return PostgresQuery(unsafeSQL: text, binds: bindings)
    }

    /// A result cell as a `DatabaseValue`: integers, reals, booleans (0 or 1), bytes, text.
    static func value(_ cell: PostgresCell) throws -> DatabaseValue {
        guard let bytes = cell.bytes else { return .null }
        do { return try decode(cell, bytes) } catch let error as StoreError { throw error } catch {
            throw StoreError(file: "", message: "column '\(cell.columnName)' of type \(cell.dataType) could not be read (\(String(reflecting: error).prefix(200)))")
        }
    }

    static func decode(_ cell: PostgresCell, _ bytes: ByteBuffer) throws -> DatabaseValue {
        switch cell.dataType {
        case .int2: return Int64(try cell.decode(Int16.self)).databaseValue
        case .int4: return Int64(try cell.decode(Int32.self)).databaseValue
        case .int8: return try cell.decode(Int64.self).databaseValue
        case .float4: return Double(try cell.decode(Float.self)).databaseValue
        case .float8: return try cell.decode(Double.self).databaseValue
        case .bool: return (try cell.decode(Bool.self) ? 1 : 0).databaseValue
        case .bytea: return Data(bytes.readableBytesView).databaseValue
        default:
            if let text = try? cell.decode(String.self) { return text.databaseValue }
            throw StoreError(file: "", message: "column '\(cell.columnName)' has type \(cell.dataType), which DrillDown reads only as text")
        }
    }

    /// Text of no declared type: the server gives it the type its place in the statement needs.
    struct Untyped: PostgresDynamicTypeEncodable {
        var text: String
        init(_ text: String) { self.text = text }
        var psqlType: PostgresDataType { PostgresDataType(0) }
        var psqlFormat: PostgresFormat { .text }
        func encode<JSONEncoder: PostgresJSONEncoder>(into byteBuffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {
            byteBuffer.writeString(text)
        }
    }
}
