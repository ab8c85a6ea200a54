import DrillDownCore
import Foundation
import GRDB

/// Conversions between the core's typed ``Scalar`` and column values, following the column's
/// type affinity (https://sqlite.org/datatype3.html#type_affinity; PostgreSQL types are mapped to
/// the same affinities, plus booleans), so an edit keeps the column's type: `year=1961` into an
/// INTEGER column stores the integer 1961, `1961` into a TEXT column the text "1961", and text
/// that is not a number into an INTEGER column is refused.
package enum ColumnValue {
    /// SQLite's five type affinities, and PostgreSQL's `boolean`.
    package enum Affinity: Sendable, Equatable {
        case integer, text, blob, real, numeric, boolean
    }

    /// The affinity of a declared SQLite column type, by SQLite's rules; a `BOOLEAN` column
    /// (NUMERIC to SQLite) holds 0 and 1 read as `false` and `true`, as PostgreSQL's `boolean`.
    static func affinity(of declared: String) -> Affinity {
        let type = declared.uppercased()
        if type.contains("BOOL") { return .boolean }
        if type.contains("INT") { return .integer }
        if type.contains("CHAR") || type.contains("CLOB") || type.contains("TEXT") { return .text }
        if type.isEmpty || type.contains("BLOB") { return .blob }
        if type.contains("REAL") || type.contains("FLOA") || type.contains("DOUB") { return .real }
        return .numeric
    }

    /// A column value as a typed scalar: integers, reals, text, blobs as base64 data, NULL as
    /// null; a boolean column's 0 and 1 as `false` and `true`, a number read as text (PostgreSQL's
    /// `numeric`) as a number.
    package static func scalar(_ value: DatabaseValue, affinity: Affinity? = nil) -> Scalar {
        switch value.storage {
        case .null: return Scalar(.null, "")
        case .int64(let i): return affinity == .boolean ? Scalar(.bool, i != 0 ? "true" : "false") : Scalar(.integer, String(i))
        case .double(let d): return Scalar(.real, String(d))
        case .string(let s):
            if affinity == .numeric || affinity == .real || affinity == .integer {
                if Int64(s) != nil { return Scalar(.integer, s) }
                if Double(s) != nil { return Scalar(.real, s) }
            }
            return Scalar(.string, s)
        case .blob(let data): return Scalar(.data, data.base64EncodedString())
        }
    }

    /// `scalar` as the value to store in a column of `affinity`; `nil` with a reason when it does
    /// not fit (text that is not a number in an INTEGER or REAL column, bad base64, not a boolean).
    static func value(_ scalar: Scalar, affinity: Affinity) -> Result<DatabaseValue, Mismatch> {
        if scalar.kind == .null { return .success(.null) }
        let text = scalar.text
        func number() -> DatabaseValue? {
            if scalar.kind == .bool { return (scalar.bool ?? false ? 1 : 0).databaseValue }
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            if let i = Int64(trimmed) { return i.databaseValue }
            if let d = Double(trimmed), d.isFinite {
                return d == d.rounded() && abs(d) < 9e15 ? Int64(d).databaseValue : d.databaseValue
            }
            return nil
        }
        switch affinity {
        case .integer, .numeric:
            guard let n = number() else { return .failure(Mismatch(expected: "a number", found: text)) }
            return .success(n)
        case .real:
            guard let n = number() else { return .failure(Mismatch(expected: "a number", found: text)) }
            if case .int64(let i) = n.storage { return .success(Double(i).databaseValue) }
            return .success(n)
        case .boolean:
            guard let flag = scalar.bool else { return .failure(Mismatch(expected: "true or false", found: text)) }
            return .success((flag ? 1 : 0).databaseValue)
        case .text:
            return .success(text.databaseValue)
        case .blob:
            switch scalar.kind {
            case .data:
                guard let data = Data(base64Encoded: text) else { return .failure(Mismatch(expected: "base64 data", found: text)) }
                return .success(data.databaseValue)
            case .integer, .real, .bool: return .success(number() ?? text.databaseValue)
            default: return .success(text.databaseValue)
            }
        }
    }

    /// A value as text, for messages.
    package static func text(_ value: DatabaseValue) -> String { scalar(value).text }

    /// Why a value does not fit a column.
    struct Mismatch: Error {
        var expected: String
        var found: String
    }
}
