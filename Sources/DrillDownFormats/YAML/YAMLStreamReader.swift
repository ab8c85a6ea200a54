import DrillDownCore

/// Reads a YAML document straight from ``YAMLParser``'s event stream into the store's arrays
/// (``TreeBuilder/Columns``): each event becomes its node as it arrives, with no graph or node
/// tree in between.
///
/// This is the fast path of ``YAMLReader``, for the documents that need nothing but one pass:
/// it gives up (returns `nil`) on an alias, a merge key, anything invalid (a parse error, a
/// scalar that does not fit its tag, a duplicate key, a collection used as a key, a second
/// document or none) and on a document past the nesting or ``ExpansionLimit`` limits. The
/// reader then reads the input again with ``YAMLComposer``, which expands aliases and merges
/// and reports every error with its line and column, so both paths give the same tree and the
/// same errors. Anchors without aliases change nothing and are ignored.
///
/// ```swift
/// let tree = YAMLStreamReader.read(buffer, limit: .default)   // nil: use YAMLComposer
/// ```
/// - Complexity: O(n) in the input size; duplicate keys are found as each mapping closes
///   (``TreeBuilder/Columns``, ``DuplicateKeys``), O(k log k) for k keys.
struct YAMLStreamReader {
    /// An open sequence or mapping.
    struct Frame {
        var isMapping: Bool
        /// In a mapping: the next scalar or collection is a key.
        var expectsKey: Bool
    }

    var frames: [Frame] = []
    var nodes = 0
    var hasRoot = false

    /// The tree of `buffer`'s single document, or `nil` when ``YAMLComposer`` must read it.
    static func read(_ buffer: UnsafeBufferPointer<UInt8>, limit: ExpansionLimit) throws(ReservationFailure) -> TreeStore? {
        guard !buffer.isEmpty, var parser = try? YAMLParser(buffer) else { return nil }
        var reader = YAMLStreamReader()
        reader.frames.reserveCapacity(64)
        // Every node takes at least two bytes of input (`[]`, `a,`, `- `) but the root; text is
        // keys as written plus values as stored, which can be longer (`y` is stored as `true`).
        // More than that gives up to the composer; pages never written cost no memory (and under
        // an address-space limit the nodes are counted instead, see NodeBound.yamlCapacities).
        let maxNodes = limit.maxNodes(inputBytes: buffer.count)
        let maxText = limit.maxTextBytes(inputBytes: buffer.count)
        let (nodes, text) = NodeBound.yamlCapacities(buffer)
        return try TreeBuilder.build(nodeCapacity: nodes, textCapacity: text) { out in
            reader.fill(&parser, into: &out) && reader.nodes <= maxNodes && out.textCount <= maxText
        }
    }

    /// Turns events into nodes until the stream ends; `false` to give up.
    mutating func fill(_ parser: inout YAMLParser, into out: inout TreeBuilder.Columns) -> Bool {
        while true {
            let next: YAMLParser.Event?
            do throws(ParseFailure) { next = try parser.next() } catch { return false }
            guard let event = next else { return hasRoot }
            switch event.kind {
            case .scalar:
                let added = event.value.withUnsafeBufferPointer { addScalar($0, event.tag, isPlain: event.style == .plain, into: &out) }
                guard added else { return false }
            case .sequenceStart, .mappingStart:
                guard frames.count < YAMLReader.maxDepth, beginValue(into: &out) else { return false }
                let isMapping = event.kind == .mappingStart
                out.openContainer(isMapping ? .object : .array)
                frames.append(Frame(isMapping: isMapping, expectsKey: true))
            case .sequenceEnd, .mappingEnd:
                frames.removeLast()
                out.closeContainer()
                endValue()
            case .documentStart:
                if hasRoot { return false }
            case .alias:
                return false
            case .documentEnd:
                break
            }
        }
    }

    /// Adds a scalar: a mapping's key (the title of the member that follows) or a value.
    mutating func addScalar(_ text: UnsafeBufferPointer<UInt8>, _ tag: String?, isPlain: Bool, into out: inout TreeBuilder.Columns) -> Bool {
        guard let scalar = try? YAMLScalar(text, tag: tag, isPlain: isPlain) else { return false }
        if let last = frames.indices.last, frames[last].isMapping, frames[last].expectsKey {
            guard !scalar.isMergeKey else { return false }
            out.beginNode()
            if let base = text.baseAddress, !out.appendText(base, text.count) { return false }
            out.endKey()
            frames[last].expectsKey = false
            return true
        }
        guard beginValue(into: &out) else { return false }
        if var converted = scalar.converted {
            let fitted = converted.withUTF8 { $0.isEmpty || out.appendText($0.baseAddress!, $0.count) }
            guard fitted else { return false }
        } else if let base = text.baseAddress, !out.appendText(base, text.count) {
            return false
        }
        out.finishScalar(scalar.kind)
        endValue()
        return true
    }

    /// Starts the node of a value: a sequence element or the root gets an empty title, a mapping
    /// member already has its key. `false` where a key is expected (keys must be scalars) or
    /// after the root.
    mutating func beginValue(into out: inout TreeBuilder.Columns) -> Bool {
        nodes += 1
        guard let last = frames.last else {
            guard !hasRoot else { return false }
            out.beginNode()
            out.endKey()
            return true
        }
        if last.isMapping { return !last.expectsKey }
        out.beginNode()
        out.endKey()
        return true
    }

    /// Notes that a value ended: its mapping expects a key again, or the root is complete.
    mutating func endValue() {
        if let last = frames.indices.last {
            frames[last].expectsKey = true
        } else {
            hasRoot = true
        }
    }
}
