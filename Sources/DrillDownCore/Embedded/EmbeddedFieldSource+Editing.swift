extension EmbeddedFieldSource {
    /// Changes as the store beneath makes them, and how to read its paths back.
    public struct Lowered: Sendable {
        /// The changes for the store: each change inside a field's JSON replaced by one
        /// `setAttribute` of the row with the field's new text (one per field changed).
        public var changes: [Change]
        /// For each change given: which of `changes` carries it, and the path it reached inside a
        /// field (`nil`: the store's path for it).
        var carriers: [(index: Int, inside: TreePath?)]

        /// The paths of the changes given, from the paths the store returned for `changes` (as
        /// they are when no change reached into a field: a store may answer an undo's inserts
        /// with the deleted rows' paths).
        public func paths(_ stored: [TreePath]) -> [TreePath] {
            guard carriers.contains(where: { $0.inside != nil }) || carriers.count != changes.count else { return stored }
            return carriers.map { $0.inside ?? (stored.indices.contains($0.index) ? stored[$0.index] : .root) }
        }
    }

    /// Turns `changes` (addressed by this source's TreePaths) into changes of the source beneath:
    /// a change inside a field that holds JSON — set a value, rename a key, add, delete, move
    /// within the value — is made to the parsed value (with every rule of a generic document),
    /// and the field is set to the result, written compactly with its keys in order. Setting the
    /// field's node's value sets the field. Other changes pass unchanged.
    ///
    /// Changes inside one field are read one after the other, as in a document; changes of the
    /// rows are addressed to the data as it was before them.
    /// - Throws: ``EditError`` with the full path when a change is invalid inside the value, when
    ///   it renames, deletes or moves a field's node, moves a row into or out of a value, or when
    ///   the store cannot write its fields back (``EmbeddedFields/writable``).
    public func lower(_ changes: [Change]) throws(EditError) -> Lowered {
        var out: [Change] = []
        var carriers: [(index: Int, inside: TreePath?)] = []
        // Fields changed so far: the slot of their setAttribute, the row, the key, the edited value.
        var edited: [TreePath: (slot: Int, row: TreePath, key: String, value: EditableDocument)] = [:]
        for change in changes {
            guard let (fieldPath, place, inner) = try split(change) else {
                carriers.append((out.count, nil))
                out.append(change)
                continue
            }
            guard fields.writable else {
                throw EditError("the JSON in '\(place.value.key)' is read-only: this store cannot write the field back", at: change.path)
            }
            let inPlace = fields.opening == .values
            guard let inner else {
                // A value that opened in place is changed as the node it is.
                if inPlace {
                    carriers.append((out.count, nil))
                    out.append(change)
                    continue
                }
                // The field's own value: set as a whole.
                guard case .setValue(_, let value) = change else {
                    throw EditError(
                        "'\(place.value.key)' is a field of its row holding JSON: set its value or change its members; it cannot be renamed, deleted or moved",
                        at: fieldPath)
                }
                carriers.append((out.count, nil))
                out.append(.setAttribute(fieldPath.parent, key: place.value.key, value: value))
                continue
            }
            var entry =
                edited[fieldPath]
                ?? (slot: out.count, row: inPlace ? fieldPath : fieldPath.parent, key: place.value.key, value: EditableDocument(source: place.value.block.reading))
            if entry.slot == out.count { out.append(.delete(fieldPath)) }  // replaced below
            let path: TreePath
            do { path = try entry.value.apply(inner) } catch {
                throw EditError(
                    error.message, at: error.path.map { TreePath(fieldPath.indices + $0.indices) } ?? fieldPath, reason: error.reason, field: error.field)
            }
            edited[fieldPath] = entry
            carriers.append((entry.slot, TreePath(fieldPath.indices + path.indices)))
        }
        for (fieldPath, entry) in edited {
            guard let text = fields.json.write(entry.value.tree) else {
                throw EditError("the JSON inside '\(entry.key)' cannot be written back as JSON", at: fieldPath)
            }
            out[entry.slot] =
                fields.opening == .values
                ? .setValue(entry.row, value: Scalar(.string, text)) : .setAttribute(entry.row, key: entry.key, value: Scalar(.string, text))
        }
        return Lowered(changes: out, carriers: carriers)
    }

    /// The field `change` reaches (its node's path and place) and the change addressed inside its
    /// value (`nil` for a change of the field's node itself); `nil` for a change of the rows.
    func split(_ change: Change) throws(EditError) -> (TreePath, EmbeddedFields.Place, Change?)? {
        // An insert's parent may be the field's node itself (a new member of its top level).
        let into: Bool = if case .insert = change { true } else { false }
        guard let (fieldPath, place, rest) = field(on: change.path) else {
            if case .move(_, let parent, _) = change, field(on: parent) != nil {
                throw EditError("a row cannot move into the JSON of a field", at: change.path)
            }
            return nil
        }
        if rest.isRoot && !into { return (fieldPath, place, nil) }
        guard case .move(_, let parent, let index) = change else { return (fieldPath, place, change.addressed(at: rest)) }
        guard let (target, _, inside) = field(on: parent), target == fieldPath else {
            throw EditError("a node cannot move out of the JSON of a field", at: change.path)
        }
        return (fieldPath, place, .move(rest, parent: inside, index: index))
    }

    /// The field's node on `path` (its path and place) and the rest of the path inside its value.
    func field(on path: TreePath) -> (TreePath, EmbeddedFields.Place, TreePath)? {
        var n = root
        for (depth, index) in path.indices.enumerated() {
            let level = children(of: n)
            guard index >= 0, index < level.count else { return nil }
            n = level[index]
            if let place = opened(n) {
                return (TreePath(Array(path.indices.prefix(depth + 1))), place, TreePath(Array(path.indices.dropFirst(depth + 1))))
            }
        }
        return nil
    }
}
