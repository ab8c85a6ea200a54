/// One level of records as a table: one row per child of ``level``, one column per field. CSV
/// export (the CLI's `convert --level`, the web app's Download CSV) writes it.
///
/// The columns, in order:
/// 1. the title column: a table's title column (a relational level), else the key the rows keep
///    their title under (`title`, `name`, …) in the outline convention, else `key` for a generic
///    object's members (a generic array's rows have no title column: their titles are positions);
/// 2. the storage's fields (a relational table's columns), else the fields the row kind declares
///    in the schema (`fields:`), followed by every other attribute key the rows have, in the
///    order they first appear, and `value` when some rows are scalar leaves (a generic
///    document's `port: 8080`).
///
/// ```swift
/// let table = try LevelTable(source: source, schema: schema, level: album)
/// table.columns.map(\.key)          // ["name", "track", "length", "composer", "genre", "plays"]
/// table.cells(of: table.rows[0])    // ["Blue in Green", "3", "337", "", "Jazz", "0"]
/// ```
public struct LevelTable: Sendable {
    /// The source the rows come from.
    public let source: any Source
    /// The node whose children are the rows.
    public let level: NodeID
    /// The columns, the title column (``Field/isTitle``) first when there is one.
    public let columns: [Field]
    /// The most columns a level may have: a document whose rows each bring new keys is refused
    /// beyond this rather than made into an unbounded header.
    public static let maxColumns = 10_000

    /// The table of `level`'s children; `schema` gives the kind's declared fields. With `listed`
    /// (data indices, in the order to write them: a filtered level, or the rows a reader may see,
    /// as ``Presenter``'s levels list them), only those children are rows.
    /// - Throws: ``Refusal`` when the rows have more than ``maxColumns`` distinct attribute keys.
    /// - Complexity: O(rows × attributes) for a document level (every row's keys are looked at
    ///   once), O(1) rows read for a level whose storage fixes its fields.
    public init(source: any Source, schema: Schema = Schema(), level: NodeID, listed: [Int]? = nil) throws(Refusal) {
        self.source = source
        self.level = level
        self.listed = listed
        let rows = Rows(children: source.children(of: level), listed: listed)
        if let first = rows.first, let stored = source.storedFields(of: first) ?? source.storedFields(forNewChildOf: level) {
            columns = stored
            foldedKeys = stored.map { $0.key.lowercased() }
            return
        }
        var columns: [Field] = []
        if let title = Self.titleColumn(source: source, level: level, rows: rows) { columns.append(title) }
        var seen = Set(columns.map { $0.key.lowercased() })
        let template = rows.first.flatMap { Presenter(source: source, schema: schema).kind(of: $0) }
        for declared in template?.fields ?? [] where !declared.isTitleKey && seen.insert(declared.key.lowercased()).inserted {
            columns.append(declared)
        }
        for row in rows {
            if source.value(of: row) != nil, source.childCount(of: row) == 0, seen.insert(Self.valueKey).inserted {
                columns.append(Field(key: Self.valueKey))
            }
            for attribute in source.attributes(of: row) where seen.insert(attribute.key.lowercased()).inserted {
                columns.append(FieldForm.inferred(attribute, template))
                if columns.count > Self.maxColumns {
                    throw Refusal("the rows of this level have more than \(Self.maxColumns) different keys; a table of them would have no end")
                }
            }
        }
        self.columns = columns
        foldedKeys = columns.map { $0.key.lowercased() }
    }

    /// The columns' keys, lowercased, for matching the rows' keys.
    private let foldedKeys: [String]

    /// The column of scalar rows' values.
    static let valueKey = "value"

    /// The data indices of the children that are rows, in order; `nil`: every child.
    public let listed: [Int]?

    /// The rows: the children of ``level`` (those of ``listed`` when given).
    public var rows: Rows { Rows(children: source.children(of: level), listed: listed) }

    /// A level's rows: its children, or those at some of their indices.
    public struct Rows: RandomAccessCollection, Sendable {
        let children: NodeRange
        let listed: [Int]?
        public var startIndex: Int { 0 }
        public var endIndex: Int { listed?.count ?? children.count }
        public subscript(position: Int) -> NodeID { children[listed?[position] ?? position] }
    }

    /// The row's value in each column, as stored (numbers as written, a duration in seconds, a
    /// date in ISO 8601); `nil` where the row has no value (or a null). Keys match ignoring case;
    /// when a row has a key twice, the last one counts.
    /// - Complexity: O(columns × attributes) look-ups for a row of up to 16 attributes (no
    ///   allocation but the cells), O(columns + attributes) hashed ones beyond.
    public func cells(of row: NodeID) -> [String?] {
        let attributes = source.attributes(of: row)
        var out: [String?] = []
        out.reserveCapacity(columns.count)
        var byKey: [String: Scalar] = [:]
        let hashed = attributes.count > 16
        if hashed {
            byKey.reserveCapacity(attributes.count)
            for a in attributes { byKey[a.key.lowercased()] = a.value }
        }
        for (column, key) in zip(columns, foldedKeys) {
            if column.isTitle {
                out.append(source.title(of: row))
                continue
            }
            var value: Scalar?
            if hashed {
                value = byKey[key]
            } else {
                for a in attributes where Self.same(a.key, folded: key) { value = a.value }
            }
            if value == nil, key == Self.valueKey, attributes.isEmpty { value = source.value(of: row) }
            if let value, value.kind != .null { out.append(value.text) } else { out.append(nil) }
        }
        return out
    }

    /// Whether `key` is `folded` ignoring case, without allocating for ASCII keys.
    static func same(_ key: String, folded: String) -> Bool {
        if key == folded { return true }
        var a = key.utf8.makeIterator(), b = folded.utf8.makeIterator()
        while true {
            switch (a.next(), b.next()) {
            case (nil, nil): return true
            case (let x?, let y?):
                if x >= 0x80 || y >= 0x80 { return key.lowercased() == folded }
                if (x >= 0x41 && x <= 0x5A ? x | 0x20 : x) != y { return false }
            default: return false
            }
        }
    }

    /// The title column of a document level (see the type's summary).
    static func titleColumn(source: any Source, level: NodeID, rows: Rows) -> Field? {
        var field: Field
        if let document = source.documentSource, level.index < document.capacity {
            switch document.mode {
            case .outline(let keys):
                let folded = keys.folded.title
                let key = rows.lazy.compactMap { document.tree.member(of: $0, lowercasedKeys: folded) }.first
                    .map { String(decoding: document.tree.keyBytes(of: $0), as: UTF8.self) } ?? keys.title.first ?? "title"
                field = Field(key: key, label: "Title")
            case .generic:
                let list = document.tree.kind(of: level)
                guard list == .object else { return nil }
                field = Field(key: "key", label: "Key")
            }
        } else {
            field = Field(key: "title", label: "Title")
        }
        field.isTitle = true
        field.required = true
        return field
    }

    /// Why a level cannot be made a table.
    public struct Refusal: Error, Sendable, CustomStringConvertible {
        /// What is wrong.
        public var message: String
        init(_ message: String) { self.message = message }
        public var description: String { message }
    }
}
