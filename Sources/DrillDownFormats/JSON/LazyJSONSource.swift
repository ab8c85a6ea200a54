import DrillDownCore

/// A ``Source`` over a JSON file too large to index whole: the file is mapped, and a level is
/// indexed only when it is first visited.
///
/// Visiting a node's children scans that container's bytes once with the SIMD level scan
/// (``JSONLevel``: quotes, strings and brackets as bitmasks, nested containers skipped by
/// depth counting) and keeps four bytes per child: where it starts. Its children then get a
/// contiguous block of ids (``capacity`` grows as levels are visited, as with a database
/// source). Titles and values are parsed from the mapped bytes when asked for; nothing else is
/// copied, so memory is the pages the kernel keeps mapped plus the visited levels.
///
/// Nodes read as ``DocumentSource`` reads them: the outline convention (rows are objects with a
/// title member and a children array, other members are attributes) or generically, decided
/// the same way, so the same file shows the same rows, titles and paths either way.
///
/// A level is checked when it is indexed (each member's key and colon, each scalar child and
/// what follows it, the closing bracket); a nested container is checked when it is visited. A
/// syntax error found then is a failed read: the level reads as empty, ``readFailures`` counts
/// it with the error's line and column, and the front end reports it (the web answers 503, the
/// command exits 1). Opening checks the first level and that nothing follows the document.
///
/// ```swift
/// let source = try LazyJSONSource(path: "huge.json")   // scans the top level only
/// let rows = source.children(of: source.root)            // already indexed
/// source.title(of: rows[0])                              // parsed from the mapped bytes
/// ```
public struct LazyJSONSource: FallibleSource {
    /// How nodes are read: the outline convention or generic.
    public private(set) var mode: ReadingMode
    /// A name for the document (its file name), the root title in generic mode.
    public let name: String
    let mapping: JSONMapping
    /// The offset of the top-level value.
    let rootOffset: Int
    let titleKeys: [[UInt8]]
    let childKeys: [[UInt8]]
    let rowKeys: [[UInt8]]
    /// The keys that are not attributes: of rows (title and children keys) and of the root
    /// (title and row keys).
    let structuralKeys: [[UInt8]]
    let rootStructuralKeys: [[UInt8]]
    let state = LazyJSONState()

    var bytes: JSONBytes { JSONBytes(mapping.bytes) }

    /// Maps the JSON file at `path` and indexes its first level.
    /// - Parameters:
    ///   - mode: how to read it; `nil` infers it as ``DocumentSource`` does.
    ///   - keys: the outline convention's keys.
    ///   - name: the root title in generic mode.
    /// - Throws: a ``FormatError`` with line and column when the first level or what follows
    ///   the document is not valid JSON.
    public init(path: String, mode: ReadingMode? = nil, keys: OutlineKeys = .standard, name: String = "") throws(FormatError) {
        mapping = try JSONMapping(path: path)
        self.name = name
        let keySet: OutlineKeys
        if case .outline(let given) = mode { keySet = given } else { keySet = keys }
        (titleKeys, childKeys, rowKeys) = keySet.folded
        structuralKeys = titleKeys + childKeys
        rootStructuralKeys = titleKeys + rowKeys
        let raw = mapping.bytes
        let bom = raw.count >= 3 && raw[0] == 0xEF && raw[1] == 0xBB && raw[2] == 0xBF ? 3 : 0
        rootOffset = JSONBytes(raw).skipWhitespace(from: bom)
        self.mode = .generic
        do throws(ParseFailure) {
            let resolved: ReadingMode
            if let mode { resolved = mode } else { resolved = try detectMode(keySet) }
            self.mode = resolved
            try checkRoot()
        } catch {
            throw error.formatError(file: path, bytes: raw)
        }
        if let failure = state.lastFailure {
            throw FormatError(file: path, message: failure)
        }
        state.rootTitle = readRootTitle()
    }

    // MARK: Opening

    /// Whether the document follows the outline convention (``DocumentSource``'s test).
    func detectMode(_ keys: OutlineKeys) throws(ParseFailure) -> ReadingMode {
        switch bytes.roughKind(at: rootOffset) {
        case .object:
            guard let list = try member(of: rootOffset, keys: rowKeys), bytes.roughKind(at: list) == .array else { return .generic }
            let level = try scan(list)
            state.pending = level
            for i in 0 ..< level.count where bytes.roughKind(at: childStart(level, i)) != .object { return .generic }
            return .outline(keys)
        case .array:
            let level = try scan(rootOffset)
            state.pending = level
            guard level.count > 0 else { return .generic }
            var hasChildren = false
            for i in 0 ..< level.count {
                let item = childStart(level, i)
                guard bytes.roughKind(at: item) == .object, try member(of: item, keys: titleKeys) != nil else { return .generic }
                if !hasChildren, try member(of: item, keys: childKeys) != nil { hasChildren = true }
            }
            return hasChildren ? .outline(keys) : .generic
        default:
            return .generic
        }
    }

    /// Indexes the first level and checks that only whitespace follows the document.
    func checkRoot() throws(ParseFailure) {
        let raw = mapping.bytes
        guard rootOffset < raw.count else { throw ParseFailure(offset: rootOffset, "empty document; expected a JSON value") }
        let end: Int
        switch bytes.roughKind(at: rootOffset) {
        case .object, .array:
            // The first level is indexed now; an error in it fails the opening.
            _ = try state.locked { () throws(ParseFailure) in try indexLevel(of: root) }
            if let level = state.levels.first, level.scan.open == rootOffset {
                end = level.scan.close + 1
                if level.scan.isObject { state.rootMembers = level.scan }
            } else {
                // The outline's rows are a member of the top-level object: its scan goes on
                // from the rows' end to find the object's own.
                end = try closeOfRoot() + 1
            }
        default:
            end = try bytes.end(ofScalarAt: rootOffset)
        }
        let rest = bytes.skipWhitespace(from: end)
        guard rest == raw.count else {
            throw ParseFailure(offset: rest, "unexpected \(SourceLocation.describe(rest, in: raw)) after the top-level value; expected end of input")
        }
    }

    /// The offset of the top-level object's closing brace: its scan starts after the rows
    /// (already scanned) instead of at the brace, so the file is read once.
    /// The members before the rows are read up to them, the ones after by that scan, and all
    /// are kept (``LazyJSONState/rootMembers``): looking up the title or the attributes of the
    /// top level then never scans the rows again.
    func closeOfRoot() throws(ParseFailure) -> Int {
        guard let rows = state.levels.first else { return try scan(rootOffset).close }
        var before: [Int] = []
        let b = bytes
        try JSONLevel.separators(mapping.bytes, open: rootOffset) { (separator: Int) throws(ParseFailure) -> Bool in
            before.append(separator)
            return try b.valueOffset(ofMemberAt: b.skipWhitespace(from: separator + 1), afterComma: before.count > 1) != rows.scan.open
        }
        let after = try JSONLevel.close(of: mapping.bytes, open: rootOffset, resumingAt: rows.scan.close + 1)
        state.rootMembers = JSONLevel(open: rootOffset, close: after.close, isObject: true, separators: before + after.separators)
        return after.close
    }

    // MARK: Bytes

    /// The offset where child `i` of `level` starts (a member's key, an element's value).
    @inline(__always) func childStart(_ level: JSONLevel, _ i: Int) -> Int {
        bytes.skipWhitespace(from: level.separator(i) + 1)
    }

    /// Where child `i` of `level` has its key (members only) and its value.
    func child(_ level: JSONLevel, _ i: Int) -> (key: Int?, value: Int) {
        let start = childStart(level, i)
        guard level.isObject else { return (nil, start) }
        // Checked when the level was indexed.
        let value = try? bytes.valueOffset(ofMemberAt: start, afterComma: false)
        return (start, value ?? start)
    }

    /// The level of the container at `open` for indexing (the lock held, or while opening):
    /// the one scanned while choosing the mode, else a new ``checkedScan(_:)``, counted.
    func scan(_ open: Int) throws(ParseFailure) -> JSONLevel {
        if let pending = state.pending, pending.open == open { return pending }
        let clock = ContinuousClock.now
        let level = try checkedScan(open)
        let elapsed = ContinuousClock.now - clock
        state.scannedBytes += level.close - open + 1
        state.scanNanoseconds += UInt64(elapsed.components.seconds) * 1_000_000_000 + UInt64(elapsed.components.attoseconds / 1_000_000_000)
        return level
    }

    /// Scans and checks the container at `open` (see ``JSONLevel/scan(_:open:)``): each member's
    /// key and colon (no key twice, as the full read refuses), each scalar child and what follows it.
    func checkedScan(_ open: Int) throws(ParseFailure) -> JSONLevel {
        let level = try JSONLevel.scan(mapping.bytes, open: open)
        let b = bytes
        var keys: [[UInt8]] = []
        var keyStarts: [Int] = []
        for i in 0 ..< level.count {
            var start = b.skipWhitespace(from: level.separator(i) + 1)
            if level.isObject {
                keyStarts.append(start)
                start = try b.withMember(at: start, afterComma: i > 0) { key, value throws(ParseFailure) in
                    keys.append(Array(key))
                    return value
                }
            }
            let next = i + 1 < level.count ? level.separator(i + 1) : level.close
            switch b.roughKind(at: start) {
            case .object, .array: try expectNext(afterContainer: start, at: next, inObject: level.isObject)
            default: try b.expectNext(after: try b.end(ofScalarAt: start), at: next, inObject: level.isObject)
            }
        }
        if mapping.isDamaged { throw ParseFailure(offset: open, "the file was truncated while it was read; open it again") }
        if let (later, earlier) = DuplicateKeys.first(keys) {
            throw ParseFailure.duplicateKey(
                String(decoding: keys[later], as: UTF8.self), at: keyStarts[later], earlier: keyStarts[earlier], in: "object", bytes: mapping.bytes)
        }
        return level
    }

    /// Checks that only whitespace lies between the container at `open` and the separator or
    /// closing bracket at `next`: the last byte before `next` that is not whitespace must close
    /// it (depth counting put every other bracket inside it); when not, the container is scanned
    /// to report the first stray byte after it.
    func expectNext(afterContainer open: Int, at next: Int, inObject: Bool) throws(ParseFailure) {
        let raw = mapping.bytes
        var i = next - 1
        while i > open, raw[i] == 0x20 || raw[i] == 0x0A || raw[i] == 0x0D || raw[i] == 0x09 { i -= 1 }
        if i > open, raw[i] == (raw[open] == 0x7B ? 0x7D : 0x5D) { return }
        let inner = try JSONLevel.scan(raw, open: open)
        try bytes.expectNext(after: inner.close + 1, at: next, inObject: inObject)
    }

    /// The value of the first member of the object at `object` whose key is one of `keys`
    /// (ASCII case ignored; earlier keys win), reading members only as far as needed.
    func member(of object: Int, keys: [[UInt8]]) throws(ParseFailure) -> Int? {
        guard !keys.isEmpty, bytes.roughKind(at: object) == .object else { return nil }
        var best: Int?
        var bestRank = keys.count
        try members(of: object) { key, value in
            if let rank = TreeStore.rank(of: key, in: keys, below: bestRank) {
                best = value
                bestRank = rank
                if rank == 0 { return false }
            }
            return true
        }
        return best
    }

    /// Calls `body` with each member's unescaped key and value offset, in order, until it returns
    /// false. The key is valid only during the call (it is the mapped bytes when it has no escapes).
    func members(of object: Int, _ body: (UnsafeBufferPointer<UInt8>, Int) throws(ParseFailure) -> Bool) throws(ParseFailure) {
        let b = bytes
        var index = 0
        var previous: Int?
        func visit(_ separator: Int) throws(ParseFailure) -> Bool {
            defer { index += 1 }
            let start = b.skipWhitespace(from: separator + 1)
            if let previous { try expectNext(afterValue: previous, at: separator) }
            if index == 0, start < b.bytes.count, b.bytes[start] == 0x7D { return false }  // {}
            return try b.withMember(at: start, afterComma: index > 0) { key, value throws(ParseFailure) in
                previous = value
                return try body(key, value)
            }
        }
        let close: Int?
        if object == rootOffset, let level = state.rootMembers {
            // The top level's members were found while opening.
            close = level.close
            for i in 0 ..< level.count where !(try visit(level.separator(i))) { return }
        } else {
            close = try JSONLevel.separators(mapping.bytes, open: object, visit)
        }
        if let close, let previous { try expectNext(afterValue: previous, at: close) }
    }

    /// Checks what lies between the member value at `value` and the separator at `next`.
    func expectNext(afterValue value: Int, at next: Int) throws(ParseFailure) {
        if bytes.roughKind(at: value)?.isContainer == true {
            try expectNext(afterContainer: value, at: next, inObject: true)
        } else {
            try bytes.expectNext(after: try bytes.end(ofScalarAt: value), at: next, inObject: true)
        }
    }

    // MARK: Nodes

    /// Where node `id` has its key (a member in generic mode) and its value, and the level it is in.
    func location(of id: NodeID) -> (key: Int?, value: Int, level: LazyJSONState.Level?, position: Int) {
        if id.rawValue == 0 { return (nil, rootOffset, nil, 0) }
        guard let placed = state.locked({ state.place(of: id.rawValue) }) else { return (nil, rootOffset, nil, 0) }
        let (key, value) = child(placed.level.scan, placed.position)
        return (key, value, placed.level, placed.position)
    }

    /// The container whose children are the children of `id`, if any.
    func childContainer(of id: NodeID, at value: Int) throws(ParseFailure) -> Int? {
        try childContainer(at: value, isRoot: id.rawValue == 0)
    }

    /// The container whose children are the children of the node whose value is at `value`.
    func childContainer(at value: Int, isRoot: Bool) throws(ParseFailure) -> Int? {
        let kind = bytes.roughKind(at: value)
        guard case .outline = mode else { return kind?.isContainer == true ? value : nil }
        if isRoot, kind == .array { return value }
        guard let list = try member(of: value, keys: isRoot ? rowKeys : childKeys), bytes.roughKind(at: list) == .array else {
            return nil
        }
        return list
    }

    /// The text of the scalar at `offset`, or `nil` when it is a container or unreadable (a failed read).
    func scalar(at offset: Int) -> Scalar? {
        guard let kind = bytes.roughKind(at: offset), !kind.isContainer else {
            if bytes.roughKind(at: offset) == nil { recordFailure(ParseFailure(offset: offset, "expected a value, found \(SourceLocation.describe(offset, in: mapping.bytes))")) }
            return nil
        }
        do throws(ParseFailure) {
            let read = try bytes.scalar(at: offset)
            return Scalar(read.kind, String(decoding: read.text, as: UTF8.self))
        } catch {
            recordFailure(error)
            return nil
        }
    }

    /// Counts a failed read with the error's line and column.
    func recordFailure(_ failure: ParseFailure) {
        let message = failure.formatError(file: mapping.path, bytes: mapping.bytes).description
        state.locked { state.fail(message) }
    }

    /// A member's value as a scalar: itself for scalars, a short description for containers (as ``DocumentSource``).
    func summary(at offset: Int) -> Scalar {
        guard let kind = bytes.roughKind(at: offset), kind.isContainer else { return scalar(at: offset) ?? Scalar(.null, "") }
        let level: JSONLevel
        do { level = try checkedScan(offset) } catch {
            recordFailure(error)
            return Scalar(.string, "")
        }
        let n = level.count
        if kind == .array, n <= 8, (0 ..< n).allSatisfy({ bytes.roughKind(at: childStart(level, $0))?.isContainer == false }) {
            let items = (0 ..< n).map { scalar(at: childStart(level, $0))?.text ?? "" }
            return Scalar(.string, items.joined(separator: ", "))
        }
        return Scalar(.string, kind == .array ? "\(n) items" : "\(n) entries")
    }

    // MARK: Source

    public var root: NodeID { NodeID(Int32(0)) }
    public var capacity: Int { state.locked { Int(state.nextID) } }

    public var readFailures: (count: Int, last: String?) { state.locked { (state.failureCount, state.lastFailure) } }

    public var rootTitle: String { state.rootTitle ?? readRootTitle() }

    /// The root's title read from the document (``rootTitle`` keeps it).
    func readRootTitle() -> String {
        if case .outline = mode, bytes.roughKind(at: rootOffset) == .object {
            do throws(ParseFailure) {
                if let t = try member(of: rootOffset, keys: titleKeys), bytes.roughKind(at: t)?.isContainer == false {
                    return scalar(at: t)?.text ?? ""
                }
            } catch {
                recordFailure(error)
            }
        }
        if case .generic = mode, !name.isEmpty { return name }
        return "Root"
    }

    public func children(of id: NodeID) -> NodeRange {
        state.locked {
            if let index = state.levelOfOwner[id.rawValue] {
                guard index >= 0 else { return .empty }
                let level = state.levels[Int(index)]
                return NodeRange(level.first, level.first + Int32(level.scan.count))
            }
            if let message = state.failedOwners[id.rawValue] {
                state.fail(message)
                return .empty
            }
            do throws(ParseFailure) {
                return try indexLevel(of: id)
            } catch {
                let message = error.formatError(file: mapping.path, bytes: mapping.bytes).description
                state.failedOwners[id.rawValue] = message
                state.fail(message)
                return .empty
            }
        }
    }

    /// Indexes the children of `id` (the lock held): finds their container, scans and checks
    /// it, and gives them a block of ids.
    func indexLevel(of id: NodeID) throws(ParseFailure) -> NodeRange {
        let value: Int, enclosing: Int
        if id.rawValue == 0 {
            (value, enclosing) = (rootOffset, 0)
        } else {
            guard let placed = state.place(of: id.rawValue) else { return .empty }
            (value, enclosing) = (child(placed.level.scan, placed.position).value, placed.level.depth)
        }
        guard let container = try childContainer(of: id, at: value) else {
            state.levelOfOwner[id.rawValue] = -1
            return .empty
        }
        let depth = try Self.depth(of: container, value: value, enclosing: enclosing)
        let scanned = try scan(container)
        if state.pending?.open == container { state.pending = nil }
        guard Int(state.nextID) + scanned.count < Int(Int32.max) else {
            throw ParseFailure(offset: container, "too many nodes visited (more than \(Int32.max) ids); open the file again")
        }
        let first = state.nextID
        state.nextID += Int32(scanned.count)
        state.levelOfOwner[id.rawValue] = Int32(state.levels.count)
        state.levels.append(LazyJSONState.Level(owner: id.rawValue, first: first, scan: scanned, depth: depth))
        return NodeRange(first, first + Int32(scanned.count))
    }

    /// The nesting of `container`, the children's container of the node whose value is at
    /// `value`, inside a level whose container has `enclosing` brackets around it (itself
    /// included): one more when it is the value, two when it is a member of the value (an
    /// outline row's children). Past ``JSONReader/maxDepth``, the full read's error at the same
    /// bracket: no level deeper than the full read allows is indexed or searched.
    static func depth(of container: Int, value: Int, enclosing: Int) throws(ParseFailure) -> Int {
        let valueDepth = enclosing + 1
        let depth = container == value ? valueDepth : valueDepth + 1
        guard depth > JSONReader.maxDepth else { return depth }
        throw ParseFailure(offset: valueDepth > JSONReader.maxDepth ? value : container, "nesting deeper than \(JSONReader.maxDepth) levels")
    }

    public func parent(of id: NodeID) -> NodeID? {
        guard id.rawValue != 0, let placed = state.locked({ state.place(of: id.rawValue) }) else { return nil }
        return NodeID(placed.level.owner)
    }

    public func title(of id: NodeID) -> String {
        let (key, value, level, position) = location(of: id)
        if id.rawValue == 0 { return mode == .generic ? "" : rootTitle }
        return title(key: key, value: value, inObject: level?.scan.isObject ?? false, position: position)
    }

    /// The title of the node (not the root) whose key (for a member) and value are at these
    /// offsets, at `position` in its level.
    func title(key: Int?, value: Int, inObject: Bool, position: Int) -> String {
        guard case .outline = mode else {
            guard inObject, let key else { return String(position) }
            return (try? bytes.member(at: key, afterComma: false)).map { String(decoding: $0.key, as: UTF8.self) } ?? ""
        }
        guard let kind = bytes.roughKind(at: value) else { return scalar(at: value)?.text ?? "" }
        if !kind.isContainer { return kind == .null ? "" : scalar(at: value)?.text ?? "" }
        do throws(ParseFailure) {
            if let t = try member(of: value, keys: titleKeys), bytes.roughKind(at: t)?.isContainer == false {
                return scalar(at: t)?.text ?? ""
            }
        } catch {
            recordFailure(error)
        }
        return "Untitled"
    }

    public func value(of id: NodeID) -> Scalar? {
        scalar(at: location(of: id).value)
    }

    /// Whether `key` is one of the structural keys (title, children) in outline mode.
    func isStructural(_ key: UnsafeBufferPointer<UInt8>, isRoot: Bool) -> Bool {
        let keys = isRoot ? rootStructuralKeys : structuralKeys
        return TreeStore.rank(of: key, in: keys, below: keys.count) != nil
    }

    public func attributes(of id: NodeID) -> [Attribute] {
        attributes(at: location(of: id).value, isRoot: id.rawValue == 0)
    }

    /// The attributes of the node whose value is at `value`.
    func attributes(at value: Int, isRoot: Bool) -> [Attribute] {
        guard bytes.roughKind(at: value) == .object else { return [] }
        var result: [Attribute] = []
        do throws(ParseFailure) {
            try members(of: value) { key, offset in
                if case .outline = mode, isStructural(key, isRoot: isRoot) { return true }
                if case .generic = mode, bytes.roughKind(at: offset)?.isContainer == true { return true }
                result.append(Attribute(key: String(decoding: key, as: UTF8.self), value: summary(at: offset)))
                return result.count < 500
            }
        } catch {
            recordFailure(error)
        }
        return result
    }

    public func attribute(_ key: String, of id: NodeID) -> Scalar? {
        let value = location(of: id).value
        guard bytes.roughKind(at: value) == .object else { return nil }
        do throws(ParseFailure) {
            guard let found = try member(of: value, keys: [Array(key.lowercased().utf8)]) else { return nil }
            return summary(at: found)
        } catch {
            recordFailure(error)
            return nil
        }
    }

    // MARK: Statistics

    /// What has been indexed so far, for `stats`.
    public struct IndexStatistics: Sendable, Equatable {
        /// The file's size in bytes.
        public var fileBytes: Int
        /// Levels indexed, and ids handed out to their children (the root included).
        public var levels: Int
        public var nodes: Int
        /// The top level's children.
        public var topLevelCount: Int
        /// Bytes of containers scanned, and the time their scans took.
        public var scannedBytes: Int
        public var scanSeconds: Double
        /// Bytes held by the indexed levels.
        public var levelBytes: Int
    }

    /// What has been indexed so far.
    public var statistics: IndexStatistics {
        state.locked {
            let top = state.levelOfOwner[0].map { $0 >= 0 ? state.levels[Int($0)].scan.count : 0 } ?? 0
            return IndexStatistics(
                fileBytes: mapping.bytes.count, levels: state.levels.count, nodes: Int(state.nextID), topLevelCount: top,
                scannedBytes: state.scannedBytes, scanSeconds: Double(state.scanNanoseconds) / 1e9,
                levelBytes: state.levels.reduce(0) { $0 + $1.scan.footprint })
        }
    }
}
