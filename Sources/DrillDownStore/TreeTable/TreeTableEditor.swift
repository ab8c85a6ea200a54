import DrillDownCore

/// Carries out one ``Change`` on a tree table inside an open write transaction, with the same
/// rules and messages as ``EditableDocument`` (outline convention or generic), writing only the
/// rows the change touches and recording them as ``RowOperation``s for undo. The queries come
/// from a ``NodeRowWriter`` (SQLite or PostgreSQL); the rules are the same for both.
package struct TreeTableEditor {
    let db: any NodeRowWriter
    /// The snapshot paths are read in, bound to the transaction.
    package var source: TreeTableSource
    let schema: Schema
    /// The row operations run so far, in order.
    package var operations: [RowOperation] = []
    /// Visible nodes whose rows changed in place (their cached pages are dropped).
    package var touched: [NodeID] = []

    package init(db: any NodeRowWriter, source: TreeTableSource, schema: Schema) {
        self.db = db
        self.source = source
        self.schema = schema
    }

    var isOutline: Bool { source.isOutline }
    var keys: TreeTableSource.Keys { source.keys }
    var gap: Int64 { TreeTableLayout.positionGap }

    mutating func run(_ operation: RowOperation) throws {
        try db.run(operation, checked: false)
        operations.append(operation)
    }

    /// Validates and applies `change`; returns the path of the affected node (as ``EditableDocument/apply(_:)``).
    package mutating func perform(_ change: Change) throws -> TreePath {
        switch change {
        case .insert(let new, let parent, let index):
            let (id, row) = try node(at: parent)
            return try insert(new, into: id, row, at: parent, index: index)
        case .updateTitle(let path, let title):
            try updateTitle(at: path, to: title)
            return path
        case .setAttribute(let path, let key, let value):
            try setAttribute(at: path, key: key, value: value)
            return path
        case .setValue(let path, let value):
            try setValue(at: path, to: value)
            return path
        case .delete(let path):
            guard !path.isRoot else { throw EditError("the root cannot be deleted", at: path) }
            let (_, row) = try node(at: path)
            let rows = try subtree(of: row.node.id)
            guard !rows.isEmpty else { throw RowOperation.Conflict(message: "node \(row.node.id) was deleted by another writer meanwhile") }
            try run(.delete(rows))
            return path
        case .move(let path, let parent, let index):
            return try move(path, into: parent, index: index)
        }
    }

    // MARK: Reading

    func node(at path: TreePath) throws -> (NodeID, LevelRow) {
        guard let found = try source.resolve(path) else {
            throw EditError("no node at TreePath \(path) (\(source.describeMiss(path)))", at: path)
        }
        return (found.id, found.row)
    }

    func name(of id: NodeID) -> String { id == source.root ? "the root" : "'\(source.title(of: id))'" }

    func childList(of row: LevelRow, isRoot: Bool) throws -> NodeRecord? {
        try source.inTransaction { _, db in try source.childList(of: row, isRoot: isRoot, db) }
    }

    func member(of row: LevelRow, _ lowercasedKeys: [String]) throws -> NodeRecord? {
        try source.inTransaction { _, db in try source.member(of: row, lowercasedKeys, db) }
    }

    func childCount(of id: NodeID) throws -> Int {
        try source.inTransaction { s, db in try source.childRange(of: id.rawValue, &s, db).count }
    }

    func stored(_ id: Int64) throws -> NodeRow {
        guard let row = try db.row(id) else { throw RowOperation.Conflict(message: "node \(id) was deleted by another writer meanwhile") }
        return row
    }

    /// A node and its descendants, parents first.
    func subtree(of id: Int64) throws -> [NodeRow] { try db.subtree(of: id) }

    static func checkTitle(_ title: String, at path: TreePath) throws {
        guard !title.allSatisfy(\.isWhitespace) else { throw EditError("a title cannot be empty", at: path) }
    }

    // MARK: Writing rows

    /// `n` fresh consecutive ids.
    func allocate(_ n: Int) throws -> Int64 { try db.allocate(n) }

    /// A position for a new child of stored node `list` at `index` among its `count` children
    /// (not counting `excluding`): between the neighbours' positions, renumbering this one level
    /// first when they leave no room.
    mutating func position(in list: Int64, at index: Int, count: Int, excluding: Int64? = nil) throws -> Int64 {
        let other = excluding ?? -1
        func nth(_ i: Int) throws -> Int64? { try db.position(ofChild: i, last: i == count - 1, of: list, excluding: other) }
        for attempt in 0 ..< 2 {
            let previous = index > 0 ? try nth(index - 1) : nil
            let next = index < count ? try nth(index) : nil
            switch (previous, next) {
            case (nil, nil): return 0
            case (let p?, nil): return p + gap
            case (nil, let n?): return n - gap
            case (let p?, let n?):
                if n - p >= 2 { return p + (n - p) / 2 }
            }
            if attempt == 0 { try renumber(list, excluding: other) }
        }
        throw EditError("could not find a position in node \(list)")
    }

    /// Spreads the children of `list` to positions `k × gap` again (recorded, so undo restores them).
    mutating func renumber(_ list: Int64, excluding: Int64) throws {
        let rows = try db.children(of: list, excluding: excluding)
        for (k, row) in rows.enumerated() where row.position != Int64(k + 1) * gap {
            var after = row
            after.position = Int64(k + 1) * gap
            try run(.update(before: row, after: after))
        }
    }

    /// The spelling of the first of `keys` used by a row among the first page of `list`, else
    /// `fallback`'s when `keys` starts with its lowercase form, else the first key.
    func spelling(of keys: [String], near list: Int64?, default fallback: String) throws -> String {
        if let list, !keys.isEmpty {
            let found = try db.memberKeys(ofFirstChildrenOf: list, lowercasedKeys: keys)
            if let first = found.first {
                let candidates = found.prefix { $0.0 == first.0 }.map(\.1)
                for key in keys { if let hit = candidates.first(where: { TreeTableSource.lowered($0) == key }) { return hit } }
            }
        }
        guard let first = keys.first else { return fallback }
        return first == TreeTableSource.lowered(fallback) ? fallback : first
    }

    /// Rows for a new object (or scalar) under `parent` at `position`, with members.
    func newNode(
        id: Int64, parent: Int64, position: Int64, key: String?, value: Scalar?, members: [(String, Scalar)]
    ) -> [NodeRow] {
        if let value { return [NodeRow(id: id, parent: parent, position: position, kind: value.kind, key: key, value: value.text)] }
        var rows = [NodeRow(id: id, parent: parent, position: position, kind: .object, key: key, value: nil)]
        for (k, member) in members.enumerated() {
            rows.append(NodeRow(id: id + 1 + Int64(k), parent: id, position: Int64(k) * gap, kind: member.1.kind, key: member.0, value: member.1.text))
        }
        return rows
    }

    // MARK: Insert

    mutating func insert(_ new: NewNode, into parentID: NodeID, _ parent: LevelRow, at path: TreePath, index: Int?) throws -> TreePath {
        var seen = Set<String>()
        for a in new.attributes {
            guard !a.key.isEmpty else { throw EditError("an attribute needs a key", at: path) }
            guard seen.insert(a.key.lowercased()).inserted else { throw EditError("attribute '\(a.key)' is given twice", at: path) }
            try a.value.validate(at: path, key: a.key)
        }
        func checkIndex(_ i: Int, _ count: Int) throws {
            guard i >= 0, i <= count else {
                throw EditError("index \(i) is out of range: \(name(of: parentID)) has \(count) children (0…\(count) allowed)", at: path)
            }
        }
        let attributes = new.attributes.map { ($0.key, $0.value) }
        _ = try stored(parent.node.id)
        if isOutline {
            try Self.checkTitle(new.title, at: path)
            guard new.value == nil else {
                throw EditError("a row of the outline convention is a dictionary: give attributes, not a value", at: path)
            }
            for a in new.attributes where (keys.title + keys.children).contains(TreeTableSource.lowered(a.key)) {
                throw EditError("'\(a.key)' is a structural key (title or children), not an attribute", at: path)
            }
            let isRoot = parentID == source.root
            let list = try childList(of: parent, isRoot: isRoot)
            let titleKey = try spelling(of: keys.title, near: list?.id, default: "Title")
            let members = [(titleKey, Scalar(.string, new.title))] + attributes
            if let list {
                if list.id != parent.node.id { _ = try stored(list.id) }
                let i = index ?? list.count
                try checkIndex(i, list.count)
                let position = try position(in: list.id, at: i, count: list.count)
                let id = try allocate(members.count + 1)
                try run(.insert(newNode(id: id, parent: list.id, position: position, key: nil, value: nil, members: members)))
                return path.appending(i)
            }
            guard parent.node.kind == .object else {
                throw EditError("\(name(of: parentID)) is a plain value and cannot have children", at: path)
            }
            let listKeys = isRoot ? keys.rows : keys.children
            if let existing = try member(of: parent, listKeys) {
                throw EditError("its '\(existing.key ?? "")' holds \(existing.kind.withArticle), not a list of rows", at: path)
            }
            try checkIndex(index ?? 0, 0)
            let schemaKey = try EditableDocument.schemaChildrenKey(
                schema, source: source, of: parentID, named: name(of: parentID), lowercasedKeys: listKeys, at: path)
            var near: Int64?
            if !isRoot, let grand = source.parent(of: parentID) {
                let grandRow = try source.inTransaction { s, db in try source.row(grand.rawValue, &s, db) }
                near = try grandRow.flatMap { try childList(of: $0, isRoot: grand == source.root) }?.id
            }
            let listKey = try schemaKey ?? spelling(of: listKeys, near: near, default: isRoot ? "Rows" : "Children")
            let listPosition = try position(in: parent.node.id, at: parent.node.count, count: parent.node.count)
            let id = try allocate(members.count + 2)
            let listRow = NodeRow(id: id, parent: parent.node.id, position: listPosition, kind: .array, key: listKey, value: nil)
            try run(.insert([listRow] + newNode(id: id + 1, parent: id, position: 0, key: nil, value: nil, members: members)))
            return path.appending(0)
        }
        let kind = parent.node.kind
        let key: String? = kind == .object ? new.title : nil
        if key != nil { try Self.checkTitle(new.title, at: path) }
        if let value = new.value {
            guard new.attributes.isEmpty else { throw EditError("a new node is either a value or has attributes, not both", at: path) }
            try value.validate(at: path, key: new.title)
        }
        guard kind.isContainer else { throw EditError("\(name(of: parentID)) is \(kind.withArticle) value and cannot have children", at: path) }
        let count = parent.node.count
        let i = index ?? count
        try checkIndex(i, count)
        if let key, try hasMember(parent.node.id, key: key, other: -1) {
            throw EditError("\(name(of: parentID)) already has a member '\(key)'", at: path)
        }
        let position = try position(in: parent.node.id, at: i, count: count)
        let id = try allocate(new.value == nil ? attributes.count + 1 : 1)
        try run(.insert(newNode(id: id, parent: parent.node.id, position: position, key: key, value: new.value, members: attributes)))
        return path.appending(i)
    }

    func hasMember(_ parent: Int64, key: String, other: Int64) throws -> Bool {
        try db.hasMember(parent, key: key, other: other)
    }

    // MARK: Title

    mutating func updateTitle(at path: TreePath, to title: String) throws {
        try Self.checkTitle(title, at: path)
        let (id, row) = try node(at: path)
        touched.append(id)
        guard isOutline else {
            guard let p = source.parent(of: id) else { throw EditError("the root has no title to change in generic mode", at: path) }
            let stored = try stored(row.node.id)
            guard let parentRow = stored.parent.map({ try? self.stored($0) }) ?? nil, parentRow.kind == .object else {
                throw EditError("an array element is titled by its position; it has no key to rename", at: path)
            }
            if try hasMember(parentRow.id, key: title, other: stored.id) {
                throw EditError("\(name(of: p)) already has a member '\(title)'", at: path)
            }
            var renamed = stored
            renamed.key = title
            try run(.update(before: stored, after: renamed))
            return
        }
        switch row.node.kind {
        case .object:
            if let member = try member(of: row, keys.title) {
                guard !member.kind.isContainer else {
                    throw EditError("its title key holds \(member.kind.withArticle), not a title", at: path)
                }
                let before = try stored(member.id)
                var after = before
                after.kind = .string
                after.value = title
                try run(.update(before: before, after: after))
            } else {
                let list = try stored(row.node.id).parent
                let key = try spelling(of: keys.title, near: list, default: "Title")
                let position = try position(in: row.node.id, at: 0, count: row.node.count)
                let memberID = try allocate(1)
                try run(.insert([NodeRow(id: memberID, parent: row.node.id, position: position, kind: .string, key: key, value: title)]))
            }
        case .array:
            throw EditError("\(name(of: id)) is a list without a title key", at: path)
        default:
            let before = try stored(row.node.id)
            var after = before
            after.kind = .string
            after.value = title
            after.key = nil
            try run(.update(before: before, after: after))
        }
    }

    // MARK: Attributes

    mutating func setAttribute(at path: TreePath, key: String, value: Scalar?) throws {
        let (id, row) = try node(at: path)
        touched.append(id)
        guard row.node.kind == .object else {
            throw EditError("\(name(of: id)) is \(row.node.kind.withArticle), not a dictionary, and has no attributes; set its value instead", at: path)
        }
        guard !key.isEmpty else { throw EditError("an attribute needs a key", at: path) }
        let lowered = TreeTableSource.lowered(key)
        if isOutline, (keys.title + (id == source.root ? keys.rows : keys.children)).contains(lowered) {
            throw EditError("'\(key)' is a structural key (title or children), not an attribute", at: path)
        }
        var existing = row.members.first { $0.key == key } ?? row.members.first { TreeTableSource.lowered($0.key ?? "") == lowered }
        if existing == nil, !row.membersComplete {
            existing = try db.member(of: row.node.id, exactKey: key) ?? member(of: row, [lowered])
        }
        if let existing, existing.kind.isContainer {
            throw EditError("'\(key)' holds \(existing.kind.withArticle); only scalar attributes can be set", at: path)
        }
        guard let value else {
            guard let existing else { throw EditError("\(name(of: id)) has no attribute '\(key)'", at: path) }
            try EditableDocument.checkSchemaRemoval(schema, source: source, of: id, key: key, at: path)
            try run(.delete([try stored(existing.id)]))
            return
        }
        try value.validate(at: path, key: key)
        try EditableDocument.checkSchemaType(schema, source: source, of: id, key: key, value: value, at: path)
        if let existing {
            let before = try stored(existing.id)
            var after = before
            after.kind = value.kind
            after.value = value.text
            try run(.update(before: before, after: after))
            return
        }
        var index = row.node.count
        if isOutline, let list = try childList(of: row, isRoot: id == source.root), list.id != row.node.id {
            index = try db.count(of: row.node.id, before: (list.position, list.id))
        }
        let position = try position(in: row.node.id, at: index, count: row.node.count)
        let memberID = try allocate(1)
        try run(.insert([NodeRow(id: memberID, parent: row.node.id, position: position, kind: value.kind, key: key, value: value.text)]))
    }

    // MARK: Values

    mutating func setValue(at path: TreePath, to value: Scalar) throws {
        guard !path.isRoot else { throw EditError("the root has no value of its own; set its fields instead", at: path) }
        let (id, row) = try node(at: path)
        touched.append(id)
        guard !row.node.kind.isContainer else {
            throw EditError("\(name(of: id)) is \(row.node.kind.withArticle), not a single value; set its fields (attributes) instead", at: path)
        }
        try value.validate(at: path, key: source.title(of: id))
        try EditableDocument.checkSchemaType(schema, source: source, of: id, key: FieldForm.valueKey, value: value, at: path)
        let before = try stored(row.node.id)
        var after = before
        after.kind = value.kind
        after.value = value.text
        try run(.update(before: before, after: after))
    }

    // MARK: Move

    mutating func move(_ path: TreePath, into parent: TreePath, index: Int?) throws -> TreePath {
        guard !path.isRoot else { throw EditError("the root cannot be moved", at: path) }
        let (id, row) = try node(at: path)
        let (destination, destinationRow) = try node(at: parent)
        guard !parent.hasPrefix(path) else {
            throw EditError("cannot move \(name(of: id)) into itself or its own subtree (\(parent.isRoot ? "the root" : parent.description))", at: path)
        }
        let sameParent = source.parent(of: id) == destination
        let count = try childCount(of: destination) - (sameParent ? 1 : 0)
        if let index, index < 0 || index > count {
            throw EditError(
                "index \(index) is out of range: \(name(of: destination)) would have \(count) other children (0…\(count) allowed)", at: parent)
        }
        let isRoot = destination == source.root
        let before = try stored(row.node.id)
        var after = before
        var list: Int64
        var i = index ?? count
        if isOutline {
            if let existing = try childList(of: destinationRow, isRoot: isRoot) {
                list = existing.id
            } else {
                guard destinationRow.node.kind == .object else {
                    throw EditError("\(name(of: destination)) is a plain value and cannot have children", at: parent)
                }
                let listKeys = isRoot ? keys.rows : keys.children
                if let existing = try member(of: destinationRow, listKeys) {
                    throw EditError("its '\(existing.key ?? "")' holds \(existing.kind.withArticle), not a list of rows", at: parent)
                }
                guard (index ?? 0) == 0 else {
                    throw EditError("index \(index ?? 0) is out of range: \(name(of: destination)) has 0 children (0…0 allowed)", at: parent)
                }
                i = 0
                let schemaKey = try EditableDocument.schemaChildrenKey(
                    schema, source: source, of: destination, named: name(of: destination), lowercasedKeys: listKeys, at: parent)
                var near: Int64?
                if !isRoot, let grand = source.parent(of: destination) {
                    let grandRow = try source.inTransaction { s, db in try source.row(grand.rawValue, &s, db) }
                    near = try grandRow.flatMap { try childList(of: $0, isRoot: grand == source.root) }?.id
                }
                let listKey = try schemaKey ?? spelling(of: listKeys, near: near, default: isRoot ? "Rows" : "Children")
                let members = destinationRow.node.count
                let listPosition = try position(in: destinationRow.node.id, at: members, count: members)
                list = try allocate(1)
                try run(.insert([NodeRow(id: list, parent: destinationRow.node.id, position: listPosition, kind: .array, key: listKey, value: nil)]))
            }
            after.key = nil
        } else {
            let kind = destinationRow.node.kind
            guard kind.isContainer else { throw EditError("\(name(of: destination)) is \(kind.withArticle) value and cannot have children", at: parent) }
            list = destinationRow.node.id
            if kind == .object {
                let key = before.key ?? source.title(of: id)
                if try hasMember(list, key: key, other: before.id) {
                    throw EditError("\(name(of: destination)) already has a member '\(key)'", at: parent)
                }
                after.key = key
            } else {
                after.key = nil
            }
        }
        after.parent = list
        after.position = try position(in: list, at: i, count: count, excluding: before.id)
        try run(.update(before: before, after: after))
        var destinationPath = parent.indices
        let removed = path.indices
        let level = removed.count - 1
        if destinationPath.count > level, Array(destinationPath.prefix(level)) == Array(removed.prefix(level)),
            destinationPath[level] > removed[level]
        {
            destinationPath[level] -= 1
        }
        return TreePath(destinationPath).appending(i)
    }
}

extension TreeTableEditor {
    /// One step of a tree table store inside its write transaction: when `now` (the table as it
    /// is) is newer than `shown` (what the pages showed), the changes are first checked against
    /// it (``checkUnchanged(_:shown:now:)``); then they are carried out in order,
    /// each on the table as the previous one left it. Returns the paths, the row operations (for
    /// undo) and the snapshot after the step, whose version will be `version`.
    /// ``step(_:shown:now:writer:queries:schema:version:)`` with the changes `derive` makes from
    /// the table as it is now (`now`), inside the transaction: nothing to check against a shown snapshot.
    package static func step(
        deriving derive: (any Source) throws(EditError) -> [Change], now: TreeTableSource, writer: any NodeRowWriter, queries q: any NodeRowQueries,
        schema: Schema, version: Int64
    ) throws -> (changes: [Change], paths: [TreePath], operations: [RowOperation], next: TreeTableSource) {
        let changes = try derive(now.bound(to: q))
        guard !changes.isEmpty else { throw EditError("no change to apply") }
        let (paths, operations, next) = try step(changes, shown: now, now: now, writer: writer, queries: q, schema: schema, version: version)
        return (changes, paths, operations, next)
    }

    package static func step(
        _ changes: [Change], shown: TreeTableSource, now: TreeTableSource, writer: any NodeRowWriter, queries q: any NodeRowQueries, schema: Schema,
        version: Int64
    ) throws -> (paths: [TreePath], operations: [RowOperation], next: TreeTableSource) {
        var work = now.bound(to: q)
        if !now.isSnapshot(shown) {
            try checkUnchanged(changes, shown: shown.bound(to: q), now: work)
        }
        var editor = TreeTableEditor(db: writer, source: work, schema: schema)
        var paths: [TreePath] = []
        for (i, change) in changes.enumerated() {
            if i > 0 { editor.source = try work.renewed(q).bound(to: q) }
            paths.append(try editor.perform(change))
            work = editor.source
        }
        // In the outline convention a rename or an attribute changes only the row's own members, so
        // only its cached row is read again; generically a member is also a node of its own.
        let inPlace = work.isOutline && changes.count == 1 && !editor.operations.contains(where: \.isStructural) && !editor.touched.contains(work.root)
        let next = inPlace ? try work.unbound.refreshing(rowsOf: editor.touched, q, version: version) : try work.renewed(q)
        return (paths, editor.operations, next)
    }

    /// Refuses `changes` when another writer moved or changed what their paths showed: every path
    /// must still lead to the same stored row, and a renamed or re-valued row must be as shown.
    package static func checkUnchanged(_ changes: [Change], shown: TreeTableSource, now: TreeTableSource) throws {
        for change in changes {
            var paths = [change.path]
            if case .move(_, let parent, _) = change { paths.append(parent) }
            for path in paths {
                let before = try shown.storedRow(at: path)
                let after = try now.storedRow(at: path)
                guard before?.node.id == after?.node.id else {
                    throw EditError(
                        "another writer changed the rows here since they were shown; nothing was changed (reload and try again)", at: path,
                        reason: .conflict)
                }
                switch change {
                case .updateTitle, .setAttribute:
                    guard before == after else {
                        throw EditError(
                            "another writer changed this row since it was shown; nothing was changed (reload and try again)", at: path,
                            reason: .conflict)
                    }
                default: break
                }
            }
        }
    }
}
