import DrillDownCore

/// Reads CSV into a tree in the outline convention: `{"rows": [{column: value, …}, …]}`, one
/// row per record, its members named by the header record. A column named `title` or `name`
/// gives the rows their titles (as any outline document's).
///
/// Values are typed by the given fields (a schema kind's `fields:`, see ``Field/scalar(from:at:)``:
/// a `duration` column takes `3:43`), else inferred as an edit's are (``Scalar/init(inferring:)``:
/// `42` an integer, `2.5` a real, `true` a boolean, anything else text). An empty field is no
/// value: the row has no such member. The title column is always text.
///
/// Errors carry the line and column: an unterminated quoted field, text after a closing quote,
/// a record with more or fewer fields than the header, a header naming a column twice or not at
/// all, a value its field does not take, invalid UTF-8.
enum CSVReader {
    static func read(_ input: UnsafeBufferPointer<UInt8>, fields declared: [Field] = []) throws(ParseFailure) -> TreeStore {
        if let bad = UTF8Validation.firstInvalidOffset(in: input) {
            throw ParseFailure(offset: bad, "invalid UTF-8 byte 0x\(String(input[bad], radix: 16, uppercase: true)); CSV must be UTF-8")
        }
        var parser = CSVParser(input)
        guard try parser.nextRecord() else { throw ParseFailure(offset: 0, "empty document; expected a header record naming the columns") }
        var keys: [[UInt8]] = []
        var columns: [(key: [UInt8], field: Field?, isTitle: Bool)] = []
        var seen: [String: Int] = [:]
        for (i, range) in parser.fields.enumerated() {
            var key: [UInt8] = []
            parser.decode(range, into: &key)
            let name = String(decoding: key, as: UTF8.self)
            if name.isEmpty { throw ParseFailure(offset: range.start, "column \(i + 1) of the header has no name; every column needs one") }
            if let earlier = seen.updateValue(i, forKey: name.lowercased()) {
                throw ParseFailure(offset: range.start, "the header names '\(name)' twice (columns \(earlier + 1) and \(i + 1)); a key may appear once per row")
            }
            if i >= LevelTable.maxColumns { throw ParseFailure(offset: range.start, "more than \(LevelTable.maxColumns) columns") }
            keys.append(key)
            let field = declared.first { $0.key.lowercased() == name.lowercased() }
            columns.append((key, field, ["title", "name"].contains(name.lowercased())))
        }
        var builder = TreeBuilder(expectedNodes: input.count / 8 + 16, expectedTextBytes: input.count + 16)
        builder.beginNode()
        builder.endKey()
        builder.openContainer(.object)
        builder.beginNode()
        builder.appendText("rows")
        builder.endKey()
        builder.openContainer(.array)
        var cell: [UInt8] = []
        while try parser.nextRecord() {
            guard parser.fields.count == columns.count else {
                let extra = parser.fields.count > columns.count
                throw ParseFailure(
                    offset: extra ? parser.fields[columns.count].start - (parser.fields[columns.count].quoted ? 1 : 0) : parser.recordEnd,
                    "this record has \(parser.fields.count) field\(parser.fields.count == 1 ? "" : "s"); the header has \(columns.count)")
            }
            builder.beginNode()
            builder.endKey()
            builder.openContainer(.object)
            for (i, range) in parser.fields.enumerated() {
                cell.removeAll(keepingCapacity: true)
                parser.decode(range, into: &cell)
                if cell.isEmpty { continue }
                let column = columns[i]
                builder.beginNode()
                builder.text.append(contentsOf: column.key)
                builder.endKey()
                if column.isTitle {
                    builder.text.append(contentsOf: cell)
                    builder.finishScalar(.string)
                } else if let field = column.field {
                    let text = String(decoding: cell, as: UTF8.self)
                    do throws(EditError) {
                        let scalar = try field.scalar(from: text) ?? Scalar(.null, "")
                        builder.appendText(scalar.text)
                        builder.finishScalar(scalar.kind)
                    } catch {
                        throw ParseFailure(offset: range.start - (range.quoted ? 1 : 0), error.message)
                    }
                } else {
                    builder.text.append(contentsOf: cell)
                    builder.finishScalar(inferredKind(cell))
                }
            }
            builder.closeContainer()
        }
        builder.closeContainer()
        builder.closeContainer()
        return builder.build()
    }

    /// The kind an edit would give the text (``Scalar/init(inferring:)``), judged on the bytes for
    /// the common cases.
    static func inferredKind(_ cell: [UInt8]) -> ValueKind {
        guard let first = cell.first, first == 0x2D || (first >= 0x30 && first <= 0x39) || first == 0x74 || first == 0x66 else {
            return .string
        }
        if cell.elementsEqual("true".utf8) || cell.elementsEqual("false".utf8) { return .bool }
        return Scalar(inferring: String(decoding: cell, as: UTF8.self)).kind
    }
}
