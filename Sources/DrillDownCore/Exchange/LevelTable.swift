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
    }

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
    /// date in ISO 8601); `nil` where the row has no value (or a null).
    /// - Complexity: O(columns) attribute look-ups.
    public func cells(of row: NodeID) -> [String?] {
        let attributes = source.attributes(of: row)
        var byKey: [String: Scalar] = [:]
        byKey.reserveCapacity(attributes.count)
        for a in attributes { byKey[a.key.lowercased()] = a.value }
        return columns.map { column in
            if column.isTitle { return source.title(of: row) }
            let key = column.key.lowercased()
            let value = byKey[key] ?? (key == Self.valueKey && attributes.isEmpty ? source.value(of: row) : nil)
            guard let value, value.kind != .null else { return nil }
            return value.text
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
