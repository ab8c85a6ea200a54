import DrillDownStore
import Foundation
import GRDB
import Logging
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
            throw PostgresStoreError(location, error)
        }
    }

    func execute(_ sql: String, _ arguments: [DatabaseValue]) throws {
        do { try connection.execute(Self.query(sql, arguments), logger) } catch let error as PSQLError {
            throw PostgresStoreError(location, error)
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
