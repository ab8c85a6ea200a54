/// How each ``Change`` becomes validated ``Splice``s on the store.
extension EditableDocument {
    var isOutline: Bool {
        if case .outline = mode { return true }
        return false
    }

    /// Validates and applies `change`, returning the path of the affected node.
    mutating func perform(_ change: Change, recording step: inout EditStep) throws(EditError) -> TreePath {
        switch change {
        case .insert(let new, let parent, let index):
            let parentID = try node(at: parent)
            let fragment = try newFragment(new, parent: parentID, at: parent)
            return try insert(fragment, into: parentID, at: parent, index: index, recording: &step)
        case .updateTitle(let path, let title):
            try updateTitle(at: path, to: title, recording: &step)
            return path
        case .setAttribute(let path, let key, let value):
            try setAttribute(at: path, key: key, value: value, recording: &step)
            return path
        case .setValue(let path, let value):
            try setValue(at: path, to: value, recording: &step)
            return path
        case .delete(let path):
            guard !path.isRoot else { throw EditError("the root cannot be deleted", at: path) }
            let id = try node(at: path)
            let list = tree.parent(of: id)!
            let pos = tree.position(of: id)
            splice(Splice(container: list, range: pos ..< pos + 1, fragments: []), recording: &step)
            return path
        case .move(let path, let parent, let index):
            return try move(path, into: parent, index: index, recording: &step)
        }
    }

    /// The node at a source path, or an error naming how far the path got.
    func node(at path: TreePath) throws(EditError) -> NodeID {
        guard let id = source.node(at: path) else {
            throw EditError("no node at TreePath \(path) (\(source.describeMiss(path)))", at: path)
        }
        return id
    }

    func name(of id: NodeID) -> String { id == source.root ? "the root" : "'\(source.title(of: id))'" }

    static func checkTitle(_ title: String, at path: TreePath) throws(EditError) {
        guard !title.allSatisfy(\.isWhitespace) else { throw EditError("a title cannot be empty", at: path) }
    }

    /// The keys that are structure, not attributes, in a row (or the root) in outline mode.
    func structuralKeys(of id: NodeID) -> [[UInt8]] {
        guard isOutline else { return [] }
        return source.titleKeys + (id == source.root ? source.rowKeys : source.childKeys)
    }

    // MARK: Insert

    /// The fragment a ``NewNode`` becomes under `parentID`.
    func newFragment(_ node: NewNode, parent parentID: NodeID, at path: TreePath) throws(EditError) -> Fragment {
        var members: [Fragment] = []
        members.reserveCapacity(node.attributes.count + 1)
        var seen = Set<String>()
        for a in node.attributes {
            guard !a.key.isEmpty else { throw EditError("an attribute needs a key", at: path) }
            guard seen.insert(a.key.lowercased()).inserted else { throw EditError("attribute '\(a.key)' is given twice", at: path) }
            try a.value.validate(at: path, key: a.key)
            members.append(Fragment(key: a.key, scalar: a.value))
        }
        if isOutline {
            try Self.checkTitle(node.title, at: path)
            guard node.value == nil else {
                throw EditError("a row of the outline convention is a dictionary: give attributes, not a value", at: path)
            }
            for a in node.attributes {
                let lowered = Array(a.key.lowercased().utf8)
                guard source.titleKeys.contains(lowered) || source.childKeys.contains(lowered) else { continue }
                throw EditError("'\(a.key)' is a structural key (title or children), not an attribute", at: path)
            }
            let titleKey = schemaTitleKey(forRowsOf: parentID)
                ?? spelling(of: source.titleKeys, near: source.childList(of: parentID), default: "Title")
            members.insert(Fragment(key: titleKey, scalar: Scalar(.string, node.title)), at: 0)
            return Fragment(key: nil, container: .object, members: members)
        }
        let key: String? = tree.kind(of: parentID) == .object ? node.title : nil
        if key != nil { try Self.checkTitle(node.title, at: path) }
        if let value = node.value {
            guard node.attributes.isEmpty else { throw EditError("a new node is either a value or has attributes, not both", at: path) }
            try value.validate(at: path, key: node.title)
            return Fragment(key: key, scalar: value)
        }
        return Fragment(key: key, container: .object, members: members)
    }

    /// Puts `fragment` among the children of the source node `parentID` (whose path is `path`).
    /// Returns the new node's source path.
    mutating func insert(
        _ fragment: Fragment, into parentID: NodeID, at path: TreePath, index: Int?, recording step: inout EditStep
    ) throws(EditError) -> TreePath {
        func checkIndex(_ i: Int, _ count: Int) throws(EditError) {
            guard i >= 0, i <= count else {
                throw EditError("index \(i) is out of range: \(name(of: parentID)) has \(count) children (0…\(count) allowed)", at: path)
            }
        }
        // The new node's source path: `path` (the parent's) and its index, since the splices
        // below change nothing above the parent (no walk back up the new tree for it).
        let result: TreePath
        if isOutline {
            if let list = source.childList(of: parentID) {
                let count = tree.childCount(of: list)
                let i = index ?? count
                try checkIndex(i, count)
                splice(Splice(container: list, range: i ..< i, fragments: [fragment.keyed(nil)]), recording: &step)
                result = path.appending(i)
            } else {
                guard tree.kind(of: parentID) == .object else {
                    throw EditError("\(name(of: parentID)) is a plain value and cannot have children", at: path)
                }
                let keys = parentID == source.root ? source.rowKeys : source.childKeys
                if let existing = tree.member(of: parentID, lowercasedKeys: keys) {
                    let key = String(decoding: tree.keyBytes(of: existing), as: UTF8.self)
                    throw EditError("its '\(key)' holds \(tree.kind(of: existing).withArticle), not a list of rows", at: path)
                }
                try checkIndex(index ?? 0, 0)
                let schemaKey = try Self.schemaChildrenKey(
                    schema, source: source, of: parentID, named: name(of: parentID), lowercasedKeys: keys.map { String(decoding: $0, as: UTF8.self) }, at: path)
                let key = schemaKey ?? spelling(of: keys, near: source.parent(of: parentID).flatMap { source.childList(of: $0) },
                                   default: parentID == source.root ? "Rows" : "Children")
                let m = tree.childCount(of: parentID)
                if let origin = fragment.subtree?.origin, tree.sharesBase(with: origin) {
                    // A subtree of this document (a move): an empty list first, then the subtree
                    // relinked into it, so it is not copied (twice) into a new list.
                    splice(Splice(container: parentID, range: m ..< m, fragments: [Fragment(key: key, container: .array, members: [])]), recording: &step)
                    splice(Splice(container: tree.children(of: parentID)[m], range: 0 ..< 0, fragments: [fragment.keyed(nil)]), recording: &step)
                } else {
                    let list = Fragment(key: key, container: .array, members: [fragment])
                    splice(Splice(container: parentID, range: m ..< m, fragments: [list]), recording: &step)
                }
                result = path.appending(0)
            }
        } else {
            let kind = tree.kind(of: parentID)
            guard kind.isContainer else { throw EditError("\(name(of: parentID)) is \(kind.withArticle) value and cannot have children", at: path) }
            let count = tree.childCount(of: parentID)
            let i = index ?? count
            try checkIndex(i, count)
            var piece = fragment
            if kind == .object {
                guard let key = fragment.key else { throw EditError("a member of an object needs a key", at: path) }
                if tree.children(of: parentID).contains(where: { tree.keyBytes(of: $0).elementsEqual(key) }) {
                    throw EditError("\(name(of: parentID)) already has a member '\(String(decoding: key, as: UTF8.self))'", at: path)
                }
            } else {
                piece = fragment.keyed(nil)
            }
            splice(Splice(container: parentID, range: i ..< i, fragments: [piece]), recording: &step)
            result = path.appending(i)
        }
        return result
    }

    /// The title key the schema gives the rows `parentID` holds: the field of their kind's title
    /// template when it is one field (`title: "{name}"` gives `name`) and a title key of the
    /// document; `nil` without a schema or such a template.
    func schemaTitleKey(forRowsOf parentID: NodeID) -> String? {
        guard !schema.kinds.isEmpty else { return nil }
        let kindName: String?
        if parentID == source.root {
            kindName = schema.rootKind
        } else {
            kindName = Presenter(source: source, schema: schema).kind(of: parentID)?.childKind
        }
        guard let kindName, let template = schema.template(named: kindName), let parts = template.title?.parts, parts.count == 1,
            case .field(let field, _) = parts[0], source.titleKeys.contains(Array(field.lowercased().utf8))
        else { return nil }
        return field
    }

    /// The spelling of `list`'s own key when it is one of `keys` (the row holding the list spells
    /// it so: a new children list of one of its rows is spelled the same), else of the first of
    /// `keys` used by one of the first rows in `list`, else by one of the first nodes of the
    /// document, else `fallback`'s when `keys` starts with its lowercase form, else the first key.
    /// - Complexity: O(``spellingLookahead``): a change never scans a whole level or document for a key.
    func spelling(of keys: [[UInt8]], near list: NodeID?, default fallback: String) -> String {
        if let list, let holder = tree.parent(of: list), tree.kind(of: holder) == .object,
            keys.contains(where: { tree.keyEquals(list, lowercased: $0) }) {
            return String(decoding: tree.keyBytes(of: list), as: UTF8.self)
        }
        func found(in ids: some Sequence<NodeID>) -> String? {
            for id in ids.prefix(Self.spellingLookahead) where tree.kind(of: id) == .object {
                if let m = tree.member(of: id, lowercasedKeys: keys) { return String(decoding: tree.keyBytes(of: m), as: UTF8.self) }
            }
            return nil
        }
        if let list, let hit = found(in: tree.children(of: list)) { return hit }
        if let hit = found(in: tree.nodes) { return hit }
        guard let first = keys.first else { return fallback }
        return first == Array(fallback.lowercased().utf8) ? fallback : String(decoding: first, as: UTF8.self)
    }

    /// How many rows of a level, and nodes of the document, ``spelling(of:near:default:)`` looks at.
    static let spellingLookahead = 16

    // MARK: Title

    mutating func updateTitle(at path: TreePath, to title: String, recording step: inout EditStep) throws(EditError) {
        try Self.checkTitle(title, at: path)
        let id = try node(at: path)
        let kind = tree.kind(of: id)
        guard isOutline else {
            guard let p = tree.parent(of: id) else { throw EditError("the root has no title to change in generic mode", at: path) }
            guard tree.kind(of: p) == .object else {
                throw EditError("an array element is titled by its position; it has no key to rename", at: path)
            }
            let key = Array(title.utf8)
            if tree.children(of: p).contains(where: { $0 != id && tree.keyBytes(of: $0).elementsEqual(key) }) {
                throw EditError("\(name(of: p)) already has a member '\(title)'", at: path)
            }
            let pos = tree.position(of: id)
            let renamed = tree.fragment(at: id).keyed(key)
            splice(Splice(container: p, range: pos ..< pos + 1, fragments: [renamed]), recording: &step)
            return
        }
        let value = Scalar(.string, title)
        switch kind {
        case .object:
            let row = id
            if let member = tree.member(of: id, lowercasedKeys: source.titleKeys) {
                guard !tree.kind(of: member).isContainer else {
                    throw EditError("its title key holds \(tree.kind(of: member).withArticle), not a title", at: path)
                }
                let pos = tree.position(of: member)
                let piece = Fragment(key: Array(tree.keyBytes(of: member)), scalar: value)
                splice(Splice(container: row, range: pos ..< pos + 1, fragments: [piece]), recording: &step)
            } else {
                let key = spelling(of: source.titleKeys, near: tree.parent(of: id), default: "Title")
                splice(Splice(container: row, range: 0 ..< 0, fragments: [Fragment(key: key, scalar: value)]), recording: &step)
            }
        case .array:
            throw EditError("\(name(of: id)) is a list without a title key", at: path)
        default:
            let list = tree.parent(of: id)!
            let pos = tree.position(of: id)
            let piece = Fragment(key: nil as [UInt8]?, scalar: value)
            splice(Splice(container: list, range: pos ..< pos + 1, fragments: [piece]), recording: &step)
        }
    }

    // MARK: Attributes

    mutating func setAttribute(at path: TreePath, key: String, value: Scalar?, recording step: inout EditStep) throws(EditError) {
        let id = try node(at: path)
        guard tree.kind(of: id) == .object else {
            throw EditError("\(name(of: id)) is \(tree.kind(of: id).withArticle), not a dictionary, and has no attributes; set its value instead", at: path)
        }
        guard !key.isEmpty else { throw EditError("an attribute needs a key", at: path) }
        let lowered = Array(key.lowercased().utf8)
        if structuralKeys(of: id).contains(lowered) {
            throw EditError("'\(key)' is a structural key (title or children), not an attribute", at: path)
        }
        let exact = Array(key.utf8)
        let members = tree.children(of: id)
        let existing = members.first { tree.keyBytes(of: $0).elementsEqual(exact) }
            ?? members.first { tree.keyEquals($0, lowercased: lowered) }
        if let existing, tree.kind(of: existing).isContainer {
            throw EditError("'\(key)' holds \(tree.kind(of: existing).withArticle); only scalar attributes can be set", at: path)
        }
        let row = id
        guard let value else {
            guard let existing else { throw EditError("\(name(of: id)) has no attribute '\(key)'", at: path) }
            try checkSchemaRemoval(of: id, key: key, at: path)
            let pos = tree.position(of: existing)
            splice(Splice(container: row, range: pos ..< pos + 1, fragments: []), recording: &step)
            return
        }
        try value.validate(at: path, key: key)
        try checkSchemaType(of: id, key: key, value: value, at: path)
        if let existing {
            let pos = tree.position(of: existing)
            let piece = Fragment(key: Array(tree.keyBytes(of: existing)), scalar: value)
            splice(Splice(container: row, range: pos ..< pos + 1, fragments: [piece]), recording: &step)
        } else {
            var pos = members.count
            if isOutline, let list = source.childList(of: id), list != id { pos = tree.position(of: list) }
            splice(Splice(container: row, range: pos ..< pos, fragments: [Fragment(key: key, scalar: value)]), recording: &step)
        }
    }

    // MARK: Values

    mutating func setValue(at path: TreePath, to value: Scalar, recording step: inout EditStep) throws(EditError) {
        guard !path.isRoot else { throw EditError("the root has no value of its own; set its fields instead", at: path) }
        let id = try node(at: path)
        let kind = tree.kind(of: id)
        guard !kind.isContainer else {
            throw EditError("\(name(of: id)) is \(kind.withArticle), not a single value; set its fields (attributes) instead", at: path)
        }
        try value.validate(at: path, key: source.title(of: id))
        try checkSchemaType(of: id, key: FieldForm.valueKey, value: value, at: path)
        let list = tree.parent(of: id)!
        let pos = tree.position(of: id)
        let key: [UInt8]? = tree.kind(of: list) == .object ? Array(tree.keyBytes(of: id)) : nil
        splice(Splice(container: list, range: pos ..< pos + 1, fragments: [Fragment(key: key, scalar: value)]), recording: &step)
    }

    // MARK: Move

    mutating func move(_ path: TreePath, into parent: TreePath, index: Int?, recording step: inout EditStep) throws(EditError) -> TreePath {
        guard !path.isRoot else { throw EditError("the root cannot be moved", at: path) }
        let id = try node(at: path)
        let destination = try node(at: parent)
        guard !parent.hasPrefix(path) else {
            throw EditError("cannot move \(name(of: id)) into itself or its own subtree (\(parent.isRoot ? "the root" : parent.description))", at: path)
        }
        let sameParent = source.parent(of: id) == destination
        let count = source.childCount(of: destination) - (sameParent ? 1 : 0)
        if let index, index < 0 || index > count {
            throw EditError("index \(index) is out of range: \(name(of: destination)) would have \(count) other children (0…\(count) allowed)", at: parent)
        }
        if !isOutline {
            let kind = tree.kind(of: destination)
            guard kind.isContainer else { throw EditError("\(name(of: destination)) is \(kind.withArticle) value and cannot have children", at: parent) }
        } else if source.childList(of: destination) == nil, tree.kind(of: destination) != .object {
            throw EditError("\(name(of: destination)) is a plain value and cannot have children", at: parent)
        }
        var piece = tree.fragment(at: id)
        if !isOutline, tree.kind(of: destination) == .object, piece.key == nil {
            piece = piece.keyed(Array(source.title(of: id).utf8))
        }
        // Ids stay the same across the splices of a step, so the destination is the same node
        // after the removal (no store path to adjust for the siblings the removal shifts).
        let list = tree.parent(of: id)!
        let pos = tree.position(of: id)
        splice(Splice(container: list, range: pos ..< pos + 1, fragments: []), recording: &step)
        let newDestination = destination
        return try insert(piece, into: newDestination, at: source.path(of: newDestination), index: index, recording: &step)
    }
}
