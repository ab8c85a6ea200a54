import DrillDownCore

/// Writes a ``LevelTable`` as CSV (RFC 4180, UTF-8): a header row of the column keys, then one
/// record per row, fields separated by commas and records ended by CRLF. A field is quoted when
/// it holds a comma, a quote, a line break or leading or trailing space; a quote inside a quoted
/// field is doubled. A missing value is an empty field.
///
/// Rows are read from the source and encoded a batch at a time, so memory stays constant however
/// long the level is:
///
/// ```swift
/// try CSVWriter.write(LevelTable(source: source, level: album), to: "songs.csv")
/// var chunk: [UInt8] = []
/// CSVWriter.header(of: table, into: &chunk)
/// CSVWriter.encode(rows: 0 ..< 1000, of: table, into: &chunk)   // a web response's first chunk
/// ```
public enum CSVWriter {
    /// Rows encoded between two hand-overs of bytes.
    public static let batch = 2048

    /// Appends the header record (the column keys) to `out`.
    public static func header(of table: LevelTable, into out: inout [UInt8]) {
        record(table.columns.map(\.key), into: &out)
    }

    /// Appends the records of the rows at positions `range` of the level to `out`.
    /// - Complexity: O(rows × columns).
    public static func encode(rows range: Range<Int>, of table: LevelTable, into out: inout [UInt8]) {
        let rows = table.rows
        for i in range.clamped(to: 0 ..< rows.count) { record(table.cells(of: rows[i]), into: &out) }
    }

    /// Writes the table to `path` atomically (the file is replaced only once the new one is
    /// complete); `progress` is told the rows written so far after each batch.
    /// - Throws: a ``FormatError`` naming the file when it cannot be written.
    public static func write(_ table: LevelTable, to path: String, progress: ((Int) -> Void)? = nil) throws(FormatError) {
        try AtomicFile.write(to: path) { fd throws(FormatError) in
            var out = WriterOutput(.file(fd, keep: 0, limit: .max))
            do throws(WriteFailure) {
                try stream(table, progress: progress) { chunk throws(WriteFailure) in
                    out.append(contentsOf: chunk)
                    try out.checkpoint()
                }
                try out.finish()
            } catch {
                throw FormatError(file: path, message: error.message)
            }
        }
    }

    /// Calls `emit` with the header and then the records a batch at a time.
    static func stream(
        _ table: LevelTable, progress: ((Int) -> Void)?, emit: (inout [UInt8]) throws(WriteFailure) -> Void
    ) throws(WriteFailure) {
        var chunk: [UInt8] = []
        chunk.reserveCapacity(1 << 16)
        header(of: table, into: &chunk)
        let count = table.rows.count
        var start = 0
        repeat {
            let end = min(count, start + batch)
            encode(rows: start ..< end, of: table, into: &chunk)
            try emit(&chunk)
            chunk.removeAll(keepingCapacity: true)
            start = end
            progress?(end)
        } while start < count
    }

    /// Writes a document's first level (its root's children) as CSV, for a document kept in CSV.
    /// A row with rows below it is refused: CSV has no place for them, and saving would lose them.
    static func write(_ tree: TreeStore, to out: inout WriterOutput) throws(WriteFailure) {
        let source = DocumentSource(tree: tree)
        let table: LevelTable
        do throws(LevelTable.Refusal) { table = try LevelTable(source: source, level: source.root) } catch { throw WriteFailure(error.message) }
        let generic = source.mode == .generic
        for row in table.rows {
            let below = source.children(of: row)
            let nested = generic ? below.contains(where: { tree.kind(of: $0).isContainer }) : !below.isEmpty
            guard nested else { continue }
            throw WriteFailure(
                "CSV holds one level of records, but the row at \(source.path(of: row)) (\(source.titlePath(of: row))) has rows below it; "
                    + "convert one level with --level PATH")
        }
        try stream(table, progress: nil) { chunk throws(WriteFailure) in
            out.append(contentsOf: chunk)
            try out.checkpoint()
        }
    }

    /// The bytes of a whole table (for tests and small levels).
    public static func data(_ table: LevelTable) -> [UInt8] {
        var out: [UInt8] = []
        header(of: table, into: &out)
        encode(rows: 0 ..< table.rows.count, of: table, into: &out)
        return out
    }

    /// Appends one record: the fields, quoted where needed, and CRLF.
    static func record(_ fields: [String?], into out: inout [UInt8]) {
        for (i, field) in fields.enumerated() {
            if i > 0 { out.append(comma) }
            if let field { append(field, to: &out) }
        }
        out.append(0x0D)
        out.append(0x0A)
    }

    /// Appends one field, quoted when it must be.
    static func append(_ field: String, to out: inout [UInt8]) {
        let utf8 = field.utf8
        if !needsQuotes(utf8) {
            out.append(contentsOf: utf8)
            return
        }
        out.append(quote)
        for byte in utf8 {
            if byte == quote { out.append(quote) }
            out.append(byte)
        }
        out.append(quote)
    }

    /// Whether a field holds a comma, a quote, a line break, or begins or ends with a space (which
    /// some readers trim).
    static func needsQuotes(_ utf8: String.UTF8View) -> Bool {
        guard let first = utf8.first, let last = utf8.last else { return false }
        if first == 0x20 || last == 0x20 || first == 0x09 || last == 0x09 { return true }
        return utf8.contains { $0 == comma || $0 == quote || $0 == 0x0A || $0 == 0x0D }
    }

    static let comma = UInt8(ascii: ","), quote = UInt8(ascii: "\"")
}
