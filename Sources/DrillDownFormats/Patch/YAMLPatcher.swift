import CYaml
import DrillDownCore

/// Turns ``TreeDiff`` edits into replacements of the YAML text's own bytes, so comments,
/// indentation, quoting and untouched lines stay: a changed scalar or key is rewritten where it
/// stands (in its quoting style when the new value allows it), a new item or member is written
/// like its siblings (a `- ` line at their indentation, a `{…}` item where they are flow
/// mappings, a `key: value` line in a block mapping, `, item` in a flow collection), and a
/// removed block item takes its lines with it.
///
/// Positions come from libyaml's event marks. A change inside a value reached through an alias
/// or a mapping with a merge key (`<<`), or one the layout does not allow (an item sharing its
/// line with its parent's indicator), gives `nil`: the caller writes the document whole.
struct YAMLPatcher {
    let text: [UInt8]
    let new: TreeStore
    let layout: TextLayout
    let unit: [UInt8]
    let root: Node

    /// One value in the text.
    final class Node {
        enum Shape { case scalar, sequence, mapping, alias }
        var shape: Shape
        var flow = false
        var style = YAML_ANY_SCALAR_STYLE
        /// The value's bytes (block collections: from the first token).
        var start: Int
        var end: Int
        /// Where the item starts: a member's key, a block sequence item's `-`, else the value.
        var itemStart: Int
        var keyStart = -1
        var keyEnd = -1
        /// The end of the last token inside (block collections' end marks point past trailing lines).
        var contentEnd: Int
        var children: [Node] = []
        var hasMerge = false
        var anchored = false

        init(shape: Shape, start: Int, end: Int) {
            self.shape = shape
            self.start = start
            self.end = end
            itemStart = start
            contentEnd = end
        }
    }

    init?(text: [UInt8], old: TreeStore, new: TreeStore) {
        self.text = text
        self.new = new
        layout = TextLayout(text: text)
        unit = layout.indentUnit()
        guard let root = Self.parse(text) else { return nil }
        self.root = root
    }

    // MARK: Edits

    func textEdits(for edits: [TreeDiff.Edit]) throws(WriteFailure) -> [TextEdit]? {
        var out: [TextEdit] = []
        for edit in edits {
            switch edit {
            case .replace(let path, let id):
                guard let node = find(path), node.shape != .alias, !node.anchored else { return nil }
                guard let bytes = try replacement(for: id, replacing: node) else { return nil }
                out.append(TextEdit(range: node.start ..< node.contentEnd, bytes: bytes))
            case .rekey(let path, let id):
                guard let node = find(path), node.keyStart >= 0 else { return nil }
                out.append(TextEdit(range: node.keyStart ..< node.keyEnd, bytes: try scalarText(key: new.keyBytes(of: id))))
            case .splice(let path, let range, let ids):
                guard let node = find(path), node.shape != .alias, !node.hasMerge, range.upperBound <= node.children.count else { return nil }
                let keyed = node.shape == .mapping
                let edit: TextEdit?
                if node.flow || node.children.isEmpty {
                    edit = try flowSplice(node, range, ids, keyed: keyed)
                } else {
                    edit = try blockSplice(node, range, ids, keyed: keyed)
                }
                guard let edit else { return nil }
                out.append(edit)
            }
        }
        return out
    }

    /// The node at a store path, refusing paths through aliases, anchors (shared values) and merge keys.
    func find(_ path: [Int]) -> Node? {
        var n = root
        for i in path {
            guard n.shape != .alias, !n.hasMerge, !n.anchored, i < n.children.count else { return nil }
            n = n.children[i]
        }
        return n
    }

    /// The text for the new node `id` in place of `old`: a scalar in the old quoting style when
    /// possible, a collection in flow style (it fits wherever the old value stood).
    func replacement(for id: NodeID, replacing old: Node) throws(WriteFailure) -> [UInt8]? {
        if new.kind(of: id) == .string, old.shape == .scalar {
            let value = new.valueBytes(of: id)
            let simple = !value.contains { $0 < 0x20 || $0 == 0x7F }
            if old.style == YAML_SINGLE_QUOTED_SCALAR_STYLE, simple {
                return [0x27] + value.flatMap { $0 == 0x27 ? [0x27, 0x27] : [$0] } + [0x27]
            }
            if old.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE {
                var out: [UInt8] = []
                YAMLWriter.writeString(value, to: &out)
                if out.first == 0x22 { return out }
                return [0x22] + out + [0x22]
            }
            if old.style == YAML_LITERAL_SCALAR_STYLE || old.style == YAML_FOLDED_SCALAR_STYLE { return nil }
        }
        return try flow(id, keyed: false)
    }

    func scalarText(key: TextBytes) throws(WriteFailure) -> [UInt8] {
        var out: [UInt8] = []
        YAMLWriter.writeString(key, to: &out)
        return out
    }

    /// The new node `id` in flow style on one line (with its key when `keyed`).
    func flow(_ id: NodeID, keyed: Bool) throws(WriteFailure) -> [UInt8] {
        var out: [UInt8] = []
        if keyed {
            out += try scalarText(key: new.keyBytes(of: id))
            out += [0x3A, 0x20]
        }
        let kind = new.kind(of: id)
        if kind.isContainer, new.childCount(of: id) > 0 {
            out.append(kind == .object ? 0x7B : 0x5B)
            for (n, c) in new.children(of: id).enumerated() {
                if n > 0 { out += [0x2C, 0x20] }
                out += try flow(c, keyed: kind == .object)
            }
            out.append(kind == .object ? 0x7D : 0x5D)
            return out
        }
        var scalar = try YAMLWriter.data(new.subtree(at: id))
        while scalar.last == 0x0A { scalar.removeLast() }
        guard !scalar.contains(0x0A) else { throw WriteFailure("a multi-line scalar") }
        return out + scalar
    }

    /// The new node `id` in block style as lines starting at `column` (with a `- ` or `key:`).
    func block(_ id: NodeID, keyed: Bool, indent: [UInt8], dash: Bool, flowItems: Bool) throws(WriteFailure) -> [UInt8] {
        var out = indent
        if dash { out += [0x2D, 0x20] }
        let contentIndent = dash ? indent + [0x20, 0x20] : indent
        let kind = new.kind(of: id)
        if keyed {
            out += try scalarText(key: new.keyBytes(of: id))
            out.append(0x3A)
        }
        if flowItems || !kind.isContainer || new.childCount(of: id) == 0 {
            if keyed { out.append(0x20) }
            return out + (try flow(id, keyed: false)) + [0x0A]
        }
        let rendered = try YAMLWriter.data(new.subtree(at: id))
        if keyed {
            out.append(0x0A)
            return out + contentIndent + unit + TextLayout.reindent(rendered, base: contentIndent + unit, unit: unit) + [0x0A]
        }
        return out + TextLayout.reindent(rendered, base: contentIndent, unit: unit) + [0x0A]
    }

    /// A splice of a flow collection (or an empty one, which is always flow): like compact JSON.
    func flowSplice(_ node: Node, _ range: Range<Int>, _ ids: [NodeID], keyed: Bool) throws(WriteFailure) -> TextEdit? {
        let kids = node.children
        let n = kids.count
        guard node.flow || n == 0, text[node.start] == (keyed ? 0x7B : 0x5B) else { return nil }
        var close = node.end - 1
        while close > node.start, text[close] != (keyed ? 0x7D : 0x5D) { close -= 1 }
        var items: [[UInt8]] = []
        for id in ids { items.append(try flow(id, keyed: keyed)) }
        if n - range.count + ids.count == 0 { return TextEdit(range: node.start + 1 ..< close, bytes: []) }
        if n == 0 { return TextEdit(range: node.start + 1 ..< close, bytes: Array(items.joined(separator: [0x2C, 0x20]))) }
        return TextEdit.replacingItems(range, starts: kids.map(\.itemStart), ends: kids.map(\.contentEnd), with: items, in: text)
    }

    /// A splice of a block collection: whole lines go and come, laid out like the siblings.
    func blockSplice(_ node: Node, _ range: Range<Int>, _ ids: [NodeID], keyed: Bool) throws(WriteFailure) -> TextEdit? {
        let kids = node.children
        let n = kids.count
        if n - range.count + ids.count == 0 {
            return TextEdit(range: node.start ..< node.contentEnd, bytes: keyed ? [0x7B, 0x7D] : [0x5B, 0x5D])
        }
        // Every child involved must start its own line (not share it with a parent's `- `).
        let touched = Array(range) + (range.upperBound < n ? [range.upperBound] : [])
        for i in touched where !layout.startsLine(kids[i].itemStart) { return nil }
        guard let model = kids.first(where: { layout.startsLine($0.itemStart) }) ?? kids.first else { return nil }
        let indent: [UInt8]
        if layout.startsLine(model.itemStart) {
            indent = layout.indent(ofLineAt: model.itemStart)
        } else {
            indent = [UInt8](repeating: 0x20, count: model.itemStart - layout.lineStart(model.itemStart))
        }
        let flowItems = !keyed && kids.allSatisfy { $0.shape == .scalar || $0.flow }
        var lines: [UInt8] = []
        for id in ids { lines += try block(id, keyed: keyed, indent: indent, dash: !keyed, flowItems: flowItems) }
        let from = range.lowerBound < n ? layout.lineStart(kids[range.lowerBound].itemStart) : lineAfter(kids[n - 1].contentEnd)
        let to = range.isEmpty ? from : lineAfter(kids[range.upperBound - 1].contentEnd)
        if from == text.count, text.last != 0x0A { lines = [0x0A] + lines }
        return TextEdit(range: from ..< to, bytes: lines)
    }

    /// The start of the line after the one holding the last byte before `offset`.
    func lineAfter(_ offset: Int) -> Int {
        if offset > 0, text[offset - 1] == 0x0A { return offset }
        return layout.lineEnd(offset)
    }

    // MARK: Reading positions

    /// The document's values with their byte positions, or `nil` when libyaml cannot read it.
    static func parse(_ text: [UInt8]) -> Node? {
        // libyaml's marks count characters; map them to bytes.
        var byteOffset: [Int] = []
        let ascii = !text.contains { $0 >= 0x80 }
        if !ascii {
            byteOffset.reserveCapacity(text.count + 1)
            for (i, b) in text.enumerated() where b & 0xC0 != 0x80 { byteOffset.append(i) }
            byteOffset.append(text.count)
        }
        func offset(_ mark: yaml_mark_t) -> Int {
            let i = Int(mark.index)
            if ascii { return min(i, text.count) }
            return i < byteOffset.count ? byteOffset[i] : text.count
        }
        return text.withUnsafeBufferPointer { buffer -> Node? in
            guard let base = buffer.baseAddress, !buffer.isEmpty else { return nil }
            var parser = yaml_parser_t()
            guard yaml_parser_initialize(&parser) == 1 else { return nil }
            defer { yaml_parser_delete(&parser) }
            yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING)
            yaml_parser_set_input_string(&parser, base, buffer.count)
            var stack: [Node] = []
            /// Mapping keys waiting for their value: (start, end, isMerge).
            var pendingKey: [(Int, Int)?] = []
            var root: Node?
            var event = yaml_event_t()
            func attach(_ node: Node) {
                guard let parent = stack.last else {
                    root = node
                    return
                }
                if parent.shape == .mapping {
                    if let key = pendingKey[pendingKey.count - 1] {
                        node.keyStart = key.0
                        node.keyEnd = key.1
                        node.itemStart = key.0
                        parent.children.append(node)
                        pendingKey[pendingKey.count - 1] = nil
                    } else {
                        // A key.
                        if node.shape == .scalar, text[node.start ..< node.end].elementsEqual("<<".utf8) { parent.hasMerge = true }
                        pendingKey[pendingKey.count - 1] = (node.start, node.end)
                        parent.contentEnd = max(parent.contentEnd, node.contentEnd)
                        return
                    }
                } else {
                    if !parent.flow {
                        // The item's `-`, just before the value on the same line.
                        var d = node.start
                        while d > 0, text[d - 1] == 0x20 { d -= 1 }
                        if d > 0, text[d - 1] == 0x2D { node.itemStart = d - 1 }
                    }
                    parent.children.append(node)
                }
                parent.contentEnd = max(parent.contentEnd, node.contentEnd)
            }
            while true {
                guard yaml_parser_parse(&parser, &event) == 1 else { return nil }
                defer { yaml_event_delete(&event) }
                let start = offset(event.start_mark), end = offset(event.end_mark)
                switch event.type {
                case YAML_STREAM_END_EVENT:
                    return root
                case YAML_SCALAR_EVENT:
                    let node = Node(shape: .scalar, start: start, end: end)
                    node.style = event.data.scalar.style
                    node.anchored = event.data.scalar.anchor != nil
                    attach(node)
                case YAML_ALIAS_EVENT:
                    attach(Node(shape: .alias, start: start, end: end))
                case YAML_SEQUENCE_START_EVENT, YAML_MAPPING_START_EVENT:
                    let isSequence = event.type == YAML_SEQUENCE_START_EVENT
                    let node = Node(shape: isSequence ? .sequence : .mapping, start: start, end: start)
                    node.flow = isSequence
                        ? event.data.sequence_start.style == YAML_FLOW_SEQUENCE_STYLE
                        : event.data.mapping_start.style == YAML_FLOW_MAPPING_STYLE
                    node.anchored = (isSequence ? event.data.sequence_start.anchor : event.data.mapping_start.anchor) != nil
                    node.contentEnd = start + 1
                    stack.append(node)
                    pendingKey.append(nil)
                case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
                    guard let node = stack.popLast() else { return nil }
                    pendingKey.removeLast()
                    node.end = end
                    if node.flow { node.contentEnd = end }
                    attach(node)
                default:
                    break
                }
            }
        }
    }
}
