extension EditableDocument {
    /// The document as every front end reads it: with text values that hold JSON opened as subtrees
    /// (an ``EmbeddedJSONSource``) when the source has an ``EmbeddedJSON`` reader, else ``source``.
    public var presented: any Source { source.embedded == nil ? source : EmbeddedJSONSource(source) }

    /// Applies `change` where it lands: inside a text value holding JSON, the change is made to the
    /// parsed value (with every rule of a generic document) and the value's text is replaced by the
    /// result, written compactly with its keys in order; anywhere else, to the document.
    mutating func performAnywhere(_ change: Change, recording step: inout EditStep) throws(EditError) -> TreePath {
        guard source.embedded != nil else { return try perform(change, recording: &step) }
        let view = EmbeddedJSONSource(source)
        guard let (owner, block, inner) = try Self.split(change, in: view) else { return try perform(change, recording: &step) }
        var value = EditableDocument(source: block.reading)
        let path: TreePath
        do {
            path = try value.apply([inner])[0]
        } catch {
            throw EditError(error.message, at: error.path.map { TreePath(owner.indices + $0.indices) } ?? owner, reason: error.reason, field: error.field)
        }
        guard let text = view.values.json.write(value.tree) else {
            throw EditError("the JSON inside this value cannot be written back as JSON", at: owner)
        }
        _ = try perform(.setValue(owner, value: Scalar(.string, text)), recording: &step)
        return TreePath(owner.indices + path.indices)
    }

    /// The text value `change` reaches into (its path in the document), that value's parsed block,
    /// and the change addressed inside it; `nil` for a change of the document itself.
    static func split(_ change: Change, in view: EmbeddedJSONSource) throws(EditError) -> (TreePath, EmbeddedValues.Block, Change)? {
        // An insert's parent may be the value itself (a new member of its top level); other changes
        // address a node strictly inside it.
        let into: Bool = if case .insert = change { true } else { false }
        guard let (owner, block, rest) = entry(of: change.path, in: view, including: into) else {
            if case .move(_, let parent, _) = change, entry(of: parent, in: view, including: true) != nil {
                throw EditError("a row cannot move into the JSON inside a text value", at: change.path)
            }
            return nil
        }
        guard case .move(_, let parent, let index) = change else { return (owner, block, change.addressed(at: rest)) }
        guard let (target, _, place) = entry(of: parent, in: view, including: true), target == owner else {
            throw EditError("a row cannot move out of the JSON inside a text value", at: change.path)
        }
        return (owner, block, .move(rest, parent: place, index: index))
    }

    /// The first text value holding JSON on `path` (the outermost), with the rest of the path
    /// inside it: strictly inside unless `including` (then the value itself, with the root path).
    static func entry(of path: TreePath, in view: EmbeddedJSONSource, including: Bool) -> (TreePath, EmbeddedValues.Block, TreePath)? {
        var n = view.root
        for (depth, index) in path.indices.enumerated() {
            if depth > 0, let block = view.block(owning: n) {
                return (TreePath(Array(path.indices.prefix(depth))), block, TreePath(Array(path.indices.dropFirst(depth))))
            }
            let level = view.children(of: n)
            guard index >= 0, index < level.count else { return nil }
            n = level[index]
        }
        if including, !path.isRoot, let block = view.block(owning: n) { return (path, block, .root) }
        return nil
    }
}

extension Change {
    /// The same change addressed at `path` (an insert's parent, else the node it changes): a
    /// change inside a text value or field, made to its parsed JSON. A move keeps its destination.
    func addressed(at path: TreePath) -> Change {
        switch self {
        case .insert(let node, _, let index): .insert(node, parent: path, index: index)
        case .updateTitle(_, let title): .updateTitle(path, title: title)
        case .setAttribute(_, let key, let value): .setAttribute(path, key: key, value: value)
        case .setValue(_, let value): .setValue(path, value: value)
        case .delete: .delete(path)
        case .move(_, let parent, let index): .move(path, parent: parent, index: index)
        }
    }
}
