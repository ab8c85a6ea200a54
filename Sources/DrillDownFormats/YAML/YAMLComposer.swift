import DrillDownCore

/// Composes ``YAMLParser``'s event stream into a compact graph in which an alias is a second reference
/// to its anchored value (nothing is copied), then writes the graph out as a tree.
///
/// Everything is iterative, so neither deep nesting nor deep chains of aliases can overflow a
/// thread's stack. Every value's expanded size (nodes, bytes of text, nesting depth) is known
/// when it closes, from the sizes of its members, so a document that would expand past the
/// ``ExpansionLimit`` or nest deeper than ``YAMLReader/maxDepth`` (aliases included) is refused
/// at the innermost value that crosses the line, before anything is expanded. Merge keys are
/// flattened once per mapping (merged members are shared by later merges), keys must be scalars
/// (an alias of a collection used as a key is refused, never hashed), and duplicate keys are
/// compared by their text.
///
/// - Complexity: O(n) in the input size, plus O(size of the tree) to write it out.
struct YAMLComposer {
    enum Shape: UInt8 { case scalar, sequence, mapping }

    /// One composed value.
    struct Item {
        var shape: Shape
        /// For scalars: the kind its tag resolves to.
        var kind: ValueKind
        /// A plain `<<` scalar (a merge key where it is used as a key).
        var isMergeKey = false
        var line: Int
        var column: Int
        /// Scalars: the text as written (used as a key). Containers: unused.
        var raw: Range<Int> = 0 ..< 0
        /// Scalars: the text the tree stores. Containers: members in ``members`` (key/value pairs for mappings).
        var value: Range<Int> = 0 ..< 0
        /// The expanded size: nodes, bytes of text, container nesting depth.
        var nodes = 1
        var bytes = 0
        var depth = 0
    }

    /// An open sequence or mapping.
    struct Frame {
        var shape: Shape
        var line: Int
        var column: Int
        var anchor: String?
        var children: [Int] = []
    }

    var items: [Item] = []
    var texts: [UInt8] = []
    var members: [Int] = []
    var anchors: [String: Int] = [:]
    var frames: [Frame] = []
    let maxNodes: Int
    let maxTextBytes: Int
    let limit: ExpansionLimit
    /// Members copied while flattening merge keys, counted against ``maxNodes``.
    var mergeWork = 0

    init(inputBytes: Int, limit: ExpansionLimit) {
        self.limit = limit
        maxNodes = limit.maxNodes(inputBytes: inputBytes)
        maxTextBytes = limit.maxTextBytes(inputBytes: inputBytes)
        // Pre-sized from the input when the system can give that much now; grown as they fill otherwise.
        if SystemMemory.canReserve((inputBytes / 8 + 16) * MemoryLayout<Item>.stride + inputBytes + 16) {
            items.reserveCapacity(inputBytes / 8 + 16)
            texts.reserveCapacity(inputBytes + 16)
        }
    }

    // MARK: Composing

    /// Composes the single document in `buffer` and returns its root item.
    mutating func compose(_ buffer: UnsafeBufferPointer<UInt8>) throws(ParseFailure) -> Int {
        guard !buffer.isEmpty else {
            throw ParseFailure(offset: 0, "empty document; expected a YAML value")
        }
        var parser = try YAMLParser(buffer)
        var root: Int?
        while let event = try parser.next() {
            let line = event.start.line + 1
            let column = event.start.column + 1
            switch event.kind {
            case .documentStart:
                if root != nil { throw Self.located(line, column, "a second YAML document starts here; expected a single document") }
            case .scalar:
                let index = try event.value.withUnsafeBufferPointer { (text) throws(ParseFailure) -> Int in
                    try addScalar(text, tag: event.tag, isPlain: event.style == .plain, line: line, column: column)
                }
                try attach(index, anchor: Self.string(event.anchor), line: line, column: column, root: &root)
            case .alias:
                let name = String(decoding: event.value, as: UTF8.self)
                guard let target = anchors[name] else { throw Self.located(line, column, "found undefined alias '*\(name)'") }
                try attach(target, anchor: nil, line: line, column: column, root: &root)
            case .sequenceStart, .mappingStart:
                try checkNotKey(line: line, column: column)
                guard frames.count < YAMLReader.maxDepth else {
                    throw Self.located(line, column, "nesting deeper than \(YAMLReader.maxDepth) levels")
                }
                let shape: Shape = event.kind == .sequenceStart ? .sequence : .mapping
                frames.append(Frame(shape: shape, line: line, column: column, anchor: Self.string(event.anchor)))
            case .sequenceEnd, .mappingEnd:
                let frame = frames.removeLast()
                let index = try close(frame)
                try attach(index, anchor: frame.anchor, line: frame.line, column: frame.column, root: &root)
            case .documentEnd:
                break
            }
        }
        guard let root else { throw ParseFailure(offset: buffer.count, "empty document; expected a YAML value") }
        return root
    }

    /// Refuses a collection where the open mapping expects a key.
    func checkNotKey(line: Int, column: Int) throws(ParseFailure) {
        if let open = frames.last, open.shape == .mapping, open.children.count % 2 == 0 {
            throw Self.located(line, column, "mapping keys must be scalars; found a mapping or sequence used as a key")
        }
    }

    /// Registers `index` under its anchor and adds it to the open container (or makes it the root).
    mutating func attach(_ index: Int, anchor: String?, line: Int, column: Int, root: inout Int?) throws(ParseFailure) {
        if let anchor { anchors[anchor] = index }
        guard !frames.isEmpty else {
            root = index
            return
        }
        if items[index].shape != .scalar { try checkNotKey(line: line, column: column) }
        frames[frames.count - 1].children.append(index)
    }

    /// Adds a scalar, typed by its tag (or, untagged and plain, by its text).
    mutating func addScalar(_ text: UnsafeBufferPointer<UInt8>, tag: String?, isPlain: Bool, line: Int, column: Int) throws(ParseFailure) -> Int {
        let scalar: YAMLScalar
        do throws(YAMLScalar.Invalid) {
            scalar = try YAMLScalar(text, tag: tag, isPlain: isPlain)
        } catch {
            throw Self.located(line, column, error.message)
        }
        let rawStart = texts.count
        texts.append(contentsOf: text)
        var item = Item(shape: .scalar, kind: scalar.kind, isMergeKey: scalar.isMergeKey, line: line, column: column)
        item.raw = rawStart ..< texts.count
        if let converted = scalar.converted {
            let start = texts.count
            texts.append(contentsOf: converted.utf8)
            item.value = start ..< texts.count
        } else {
            item.value = item.raw
        }
        item.bytes = item.value.count
        items.append(item)
        return items.count - 1
    }

    /// Closes a sequence or mapping: flattens merge keys, checks keys and the expanded size.
    mutating func close(_ frame: Frame) throws(ParseFailure) -> Int {
        var item = Item(shape: frame.shape, kind: frame.shape == .mapping ? .object : .array, line: frame.line, column: frame.column)
        let start = members.count
        var nodes = 1
        var bytes = 0
        var depth = 0
        func add(_ value: Int) {
            let child = items[value]
            nodes = nodes.saturatingAdd(child.nodes)
            bytes = bytes.saturatingAdd(child.bytes)
            depth = max(depth, child.depth)
        }
        if frame.shape == .sequence {
            members.append(contentsOf: frame.children)
            for child in frame.children { add(child) }
        } else {
            var sources: [Int] = []
            var seen: Set<ArraySlice<UInt8>> = []
            seen.reserveCapacity(frame.children.count / 2)
            for pair in stride(from: 0, to: frame.children.count - 1, by: 2) {
                let key = frame.children[pair]
                let value = frame.children[pair + 1]
                let keyItem = items[key]
                if keyItem.isMergeKey {
                    try mergeSources(of: value, into: &sources)
                    continue
                }
                let text = texts[keyItem.raw]
                guard seen.insert(text).inserted else {
                    throw Self.located(keyItem.line, keyItem.column, "duplicate key '\(String(decoding: text, as: UTF8.self))' in mapping")
                }
                members.append(key)
                members.append(value)
                bytes = bytes.saturatingAdd(keyItem.raw.count)
                add(value)
            }
            for source in sources {
                let range = items[source].value
                var i = range.lowerBound
                while i < range.upperBound {
                    mergeWork += 1
                    guard mergeWork <= maxNodes else {
                        throw Self.located(frame.line, frame.column, limit.message("merge keys", limit: maxNodes, unit: "members"))
                    }
                    let key = members[i]
                    let value = members[i + 1]
                    i += 2
                    let keyRange = items[key].raw
                    guard seen.insert(texts[keyRange]).inserted else { continue }
                    members.append(key)
                    members.append(value)
                    bytes = bytes.saturatingAdd(keyRange.count)
                    add(value)
                }
            }
        }
        item.value = start ..< members.count
        item.nodes = nodes
        item.bytes = bytes
        item.depth = depth + 1
        guard item.depth <= YAMLReader.maxDepth else {
            throw Self.located(frame.line, frame.column, "aliases nest deeper than \(YAMLReader.maxDepth) levels")
        }
        guard nodes <= maxNodes else {
            throw Self.located(frame.line, frame.column, limit.message("aliases", limit: maxNodes, unit: "nodes"))
        }
        guard bytes <= maxTextBytes else {
            throw Self.located(frame.line, frame.column, limit.message("aliases", limit: maxTextBytes, unit: "bytes of text"))
        }
        items.append(item)
        return items.count - 1
    }

    /// The mappings a merge key's value names: a mapping, or a sequence of mappings.
    func mergeSources(of value: Int, into sources: inout [Int]) throws(ParseFailure) {
        let item = items[value]
        switch item.shape {
        case .mapping:
            sources.append(value)
        case .sequence:
            for i in item.value {
                let element = members[i]
                guard items[element].shape == .mapping else {
                    throw Self.located(items[element].line, items[element].column, "a merge key '<<' needs a mapping or a list of mappings")
                }
                sources.append(element)
            }
        case .scalar:
            throw Self.located(item.line, item.column, "a merge key '<<' needs a mapping or a list of mappings")
        }
    }

    // MARK: Writing the tree

    /// The tree of `root`, aliases expanded (their size already checked).
    func build(_ root: Int) -> TreeStore {
        let top = items[root]
        var builder = TreeBuilder(expectedNodes: top.nodes, expectedTextBytes: top.bytes)
        builder.beginNode()
        builder.endKey()
        var stack: [(item: Int, next: Int)] = []
        if let container = emit(root, into: &builder) { stack.append((container, items[container].value.lowerBound)) }
        while let (index, next) = stack.last {
            let item = items[index]
            guard next < item.value.upperBound else {
                builder.closeContainer()
                stack.removeLast()
                continue
            }
            builder.beginNode()
            let value: Int
            if item.shape == .mapping {
                appendText(items[members[next]].raw, to: &builder)
                value = members[next + 1]
                stack[stack.count - 1].next = next + 2
            } else {
                value = members[next]
                stack[stack.count - 1].next = next + 1
            }
            builder.endKey()
            if let container = emit(value, into: &builder) { stack.append((container, items[container].value.lowerBound)) }
        }
        return builder.build()
    }

    /// Finishes a scalar, or opens a container and returns it.
    func emit(_ index: Int, into builder: inout TreeBuilder) -> Int? {
        let item = items[index]
        switch item.shape {
        case .scalar:
            appendText(item.value, to: &builder)
            builder.finishScalar(item.kind)
            return nil
        case .sequence, .mapping:
            builder.openContainer(item.kind)
            return index
        }
    }

    func appendText(_ range: Range<Int>, to builder: inout TreeBuilder) {
        guard !range.isEmpty else { return }
        texts.withUnsafeBufferPointer { builder.appendText(UnsafeBufferPointer(rebasing: $0[range])) }
    }

    // MARK: Errors

    static func string(_ bytes: [UInt8]?) -> String? {
        bytes.map { String(decoding: $0, as: UTF8.self) }
    }

    static func located(_ line: Int, _ column: Int, _ message: String) -> ParseFailure {
        var failure = ParseFailure(offset: 0, message)
        failure.knownLocation = (line, column)
        return failure
    }
}
