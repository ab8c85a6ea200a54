/// Turns ``YAMLScanner``'s tokens into YAML events (documents, collections, scalars, aliases),
/// the grammar of YAML 1.2 as a state machine with an explicit stack of states (no recursion,
/// so deep nesting cannot overflow the stack). Tags are resolved against the document's `%TAG`
/// directives (`!!int` is `tag:yaml.org,2002:int`). ``YAMLComposer`` builds the tree from the events.
///
/// ```swift
/// var parser = try YAMLParser(buffer)
/// while let event = try parser.next() { … }   // nil after the stream's end
/// ```
/// - Complexity: O(n) in the input size.
struct YAMLParser {
    enum Kind: Equatable {
        case documentStart, documentEnd, sequenceStart, sequenceEnd, mappingStart, mappingEnd, scalar, alias
    }

    struct Event {
        var kind: Kind
        var start: YAMLScanner.Mark
        /// Scalars: the value; aliases: the anchor's name.
        var value: [UInt8] = []
        var anchor: [UInt8]?
        /// The resolved tag (`tag:yaml.org,2002:str`, `!local`, `!` for the non-specific tag).
        var tag: String?
        var style: YAMLScanner.Style = .plain
        /// Collections: written in flow style. Documents: an explicit `---` or `...`.
        var flow = false
    }

    enum State {
        case streamStart, implicitDocumentStart, documentStart, documentContent, documentEnd
        case blockNode, blockNodeOrIndentlessSequence, flowNode
        case blockSequenceFirstEntry, blockSequenceEntry, indentlessSequenceEntry
        case blockMappingFirstKey, blockMappingKey, blockMappingValue
        case flowSequenceFirstEntry, flowSequenceEntry, flowSequenceEntryMappingKey, flowSequenceEntryMappingValue
        case flowSequenceEntryMappingEnd
        case flowMappingFirstKey, flowMappingKey, flowMappingValue, flowMappingEmptyValue
        case end
    }

    var scanner: YAMLScanner
    var state = State.streamStart
    var states: [State] = []
    var tagHandles: [[UInt8]: [UInt8]] = [:]
    /// The last document ended without `...`: a directive cannot follow.
    var openEnded = false

    /// A parser of `buffer` (valid UTF-8, not empty); refuses characters YAML does not allow.
    init(_ buffer: UnsafeBufferPointer<UInt8>) throws(ParseFailure) {
        scanner = try YAMLScanner(buffer)
    }

    func error(_ message: String, at mark: YAMLScanner.Mark) -> ParseFailure {
        ParseFailure(offset: mark.offset, message)
    }

    /// The next event, or `nil` at the end of the stream.
    mutating func next() throws(ParseFailure) -> Event? {
        while true {
            if let event = try step() { return event }
            if state == .end { return nil }
        }
    }

    /// Runs one state: an event, or `nil` when the state only moved on.
    mutating func step() throws(ParseFailure) -> Event? {
        switch state {
        case .streamStart:
            state = .implicitDocumentStart
            return nil
        case .implicitDocumentStart:
            let token = try scanner.peek()
            if token.kind == .versionDirective || token.kind == .tagDirective || token.kind == .documentStart || token.kind == .streamEnd
                || token.kind == .documentEnd {
                state = .documentStart
                return nil
            }
            tagHandles = [:]
            states.append(.documentEnd)
            state = .blockNode
            return Event(kind: .documentStart, start: token.start)
        case .documentStart:
            var token = try scanner.peek()
            while token.kind == .documentEnd {
                _ = try scanner.next()
                openEnded = false
                token = try scanner.peek()
            }
            if token.kind == .streamEnd {
                _ = try scanner.next()
                state = .end
                return nil
            }
            if token.kind != .versionDirective && token.kind != .tagDirective && token.kind != .documentStart {
                // A bare document after `...`.
                tagHandles = [:]
                states.append(.documentEnd)
                state = .blockNode
                return Event(kind: .documentStart, start: token.start)
            }
            let start = token.start
            try processDirectives()
            token = try scanner.peek()
            guard token.kind == .documentStart else {
                throw error("expected '---' to start the document after its directives", at: token.start)
            }
            _ = try scanner.next()
            states.append(.documentEnd)
            state = .documentContent
            return Event(kind: .documentStart, start: start, flow: true)
        case .documentContent:
            let token = try scanner.peek()
            if [.versionDirective, .tagDirective, .documentStart, .documentEnd, .streamEnd].contains(token.kind) {
                state = states.removeLast()
                return emptyScalar(token.start)
            }
            state = .blockNode
            return nil
        case .documentEnd:
            let token = try scanner.peek()
            var explicit = false
            if token.kind == .documentEnd {
                _ = try scanner.next()
                explicit = true
                openEnded = false
            } else {
                guard token.kind == .documentStart || token.kind == .streamEnd else {
                    if token.kind == .versionDirective || token.kind == .tagDirective {
                        throw error("a directive must follow '...' ending the document before it", at: token.start)
                    }
                    throw error("expected the end of the document, found more content", at: token.start)
                }
                openEnded = true
            }
            state = .documentStart
            return Event(kind: .documentEnd, start: token.start, flow: explicit)
        case .blockNode:
            return try parseNode(block: true, indentlessSequence: false)
        case .blockNodeOrIndentlessSequence:
            return try parseNode(block: true, indentlessSequence: true)
        case .flowNode:
            return try parseNode(block: false, indentlessSequence: false)
        case .blockSequenceFirstEntry:
            _ = try scanner.next()
            state = .blockSequenceEntry
            return nil
        case .blockSequenceEntry:
            let token = try scanner.peek()
            if token.kind == .blockEntry {
                _ = try scanner.next()
                let after = try scanner.peek()
                if after.kind != .blockEntry && after.kind != .blockEnd {
                    states.append(.blockSequenceEntry)
                    state = .blockNode
                    return nil
                }
                state = .blockSequenceEntry
                return emptyScalar(token.start)
            }
            guard token.kind == .blockEnd else { throw error("expected a '- ' entry of the block sequence, found \(Self.describe(token.kind)) (is it indented as its block?)", at: token.start) }
            _ = try scanner.next()
            state = states.removeLast()
            return Event(kind: .sequenceEnd, start: token.start)
        case .indentlessSequenceEntry:
            let token = try scanner.peek()
            if token.kind == .blockEntry {
                _ = try scanner.next()
                let after = try scanner.peek()
                if ![.blockEntry, .key, .value, .blockEnd].contains(after.kind) {
                    states.append(.indentlessSequenceEntry)
                    state = .blockNode
                    return nil
                }
                state = .indentlessSequenceEntry
                return emptyScalar(token.start)
            }
            state = states.removeLast()
            return Event(kind: .sequenceEnd, start: token.start)
        case .blockMappingFirstKey:
            _ = try scanner.next()
            state = .blockMappingKey
            return nil
        case .blockMappingKey:
            let token = try scanner.peek()
            if token.kind == .key {
                _ = try scanner.next()
                let after = try scanner.peek()
                if ![.key, .value, .blockEnd].contains(after.kind) {
                    states.append(.blockMappingValue)
                    state = .blockNodeOrIndentlessSequence
                    return nil
                }
                state = .blockMappingValue
                return emptyScalar(token.start)
            }
            if token.kind == .value {
                // A value with no key: the key is empty.
                state = .blockMappingValue
                return emptyScalar(token.start)
            }
            guard token.kind == .blockEnd else { throw error("expected a key of the block mapping, found \(Self.describe(token.kind)) (is it indented as its block?)", at: token.start) }
            _ = try scanner.next()
            state = states.removeLast()
            return Event(kind: .mappingEnd, start: token.start)
        case .blockMappingValue:
            let token = try scanner.peek()
            if token.kind == .value {
                _ = try scanner.next()
                let after = try scanner.peek()
                if ![.key, .value, .blockEnd].contains(after.kind) {
                    states.append(.blockMappingKey)
                    state = .blockNodeOrIndentlessSequence
                    return nil
                }
                state = .blockMappingKey
                return emptyScalar(token.start)
            }
            state = .blockMappingKey
            return emptyScalar(token.start)
        case .flowSequenceFirstEntry, .flowSequenceEntry:
            let first = state == .flowSequenceFirstEntry
            var token = try scanner.peek()
            if token.kind != .flowSequenceEnd {
                if !first {
                    guard token.kind == .flowEntry else { throw error("expected ',' or ']' in the flow sequence", at: token.start) }
                    _ = try scanner.next()
                    token = try scanner.peek()
                }
                if token.kind == .key {
                    state = .flowSequenceEntryMappingKey
                    return Event(kind: .mappingStart, start: token.start, flow: true)
                }
                if token.kind == .flowEntry { throw error("an empty entry in the flow sequence (two commas)", at: token.start) }
                if token.kind != .flowSequenceEnd {
                    if token.kind == .value {
                        // `[: v]`: a pair with an empty key.
                        state = .flowSequenceEntryMappingKey
                        return Event(kind: .mappingStart, start: token.start, flow: true)
                    }
                    states.append(.flowSequenceEntry)
                    state = .flowNode
                    return nil
                }
            }
            _ = try scanner.next()
            state = states.removeLast()
            return Event(kind: .sequenceEnd, start: token.start)
        case .flowSequenceEntryMappingKey:
            let token = try scanner.peek()
            if token.kind == .key { _ = try scanner.next() }
            let after = try scanner.peek()
            if ![.value, .flowEntry, .flowSequenceEnd].contains(after.kind) {
                states.append(.flowSequenceEntryMappingValue)
                state = .flowNode
                return nil
            }
            state = .flowSequenceEntryMappingValue
            return emptyScalar(after.start)
        case .flowSequenceEntryMappingValue:
            let token = try scanner.peek()
            if token.kind == .value {
                _ = try scanner.next()
                let after = try scanner.peek()
                if after.kind != .flowEntry && after.kind != .flowSequenceEnd {
                    states.append(.flowSequenceEntryMappingEnd)
                    state = .flowNode
                    return nil
                }
            }
            state = .flowSequenceEntryMappingEnd
            return emptyScalar(token.start)
        case .flowSequenceEntryMappingEnd:
            state = .flowSequenceEntry
            return Event(kind: .mappingEnd, start: try scanner.peek().start)
        case .flowMappingFirstKey, .flowMappingKey:
            let first = state == .flowMappingFirstKey
            var token = try scanner.peek()
            if token.kind != .flowMappingEnd {
                if !first {
                    guard token.kind == .flowEntry else { throw error("expected ',' or '}' in the flow mapping", at: token.start) }
                    _ = try scanner.next()
                    token = try scanner.peek()
                }
                if token.kind == .flowEntry { throw error("an empty entry in the flow mapping (two commas)", at: token.start) }
                if token.kind == .key {
                    _ = try scanner.next()
                    let after = try scanner.peek()
                    if ![.value, .flowEntry, .flowMappingEnd].contains(after.kind) {
                        states.append(.flowMappingValue)
                        state = .flowNode
                        return nil
                    }
                    state = .flowMappingValue
                    return emptyScalar(after.start)
                }
                if token.kind == .value {
                    state = .flowMappingValue
                    return emptyScalar(token.start)
                }
                if token.kind != .flowMappingEnd {
                    states.append(.flowMappingEmptyValue)
                    state = .flowNode
                    return nil
                }
            }
            _ = try scanner.next()
            state = states.removeLast()
            return Event(kind: .mappingEnd, start: token.start)
        case .flowMappingValue:
            let token = try scanner.peek()
            if token.kind == .value {
                _ = try scanner.next()
                let after = try scanner.peek()
                if after.kind != .flowEntry && after.kind != .flowMappingEnd {
                    states.append(.flowMappingKey)
                    state = .flowNode
                    return nil
                }
            }
            state = .flowMappingKey
            return emptyScalar(token.start)
        case .flowMappingEmptyValue:
            state = .flowMappingKey
            let token = try scanner.peek()
            if token.kind == .value {
                state = .flowMappingValue
                return nil
            }
            return emptyScalar(token.start)
        case .end:
            return nil
        }
    }

    func emptyScalar(_ mark: YAMLScanner.Mark) -> Event {
        Event(kind: .scalar, start: mark)
    }

    mutating func processDirectives() throws(ParseFailure) {
        tagHandles = [:]
        var version = false
        while true {
            let token = try scanner.peek()
            if token.kind == .versionDirective {
                if openEnded { throw error("a directive must follow '...' ending the document before it", at: token.start) }
                guard !version else { throw error("a second %YAML directive for the same document", at: token.start) }
                guard token.major == 1 else { throw error("unsupported YAML version (DrillDown reads YAML 1.x)", at: token.start) }
                version = true
            } else if token.kind == .tagDirective {
                if openEnded { throw error("a directive must follow '...' ending the document before it", at: token.start) }
                guard tagHandles[token.handle] == nil else { throw error("a second %TAG directive for the same handle", at: token.start) }
                tagHandles[token.handle] = token.value
            } else {
                return
            }
            _ = try scanner.next()
        }
    }

    func resolveTag(_ token: YAMLScanner.Token) throws(ParseFailure) -> String {
        if token.handle.isEmpty { return String(decoding: token.value, as: UTF8.self) }
        if let prefix = tagHandles[token.handle] { return String(decoding: prefix + token.value, as: UTF8.self) }
        switch token.handle {
        case [0x21]: return "!" + String(decoding: token.value, as: UTF8.self)
        case [0x21, 0x21]: return "tag:yaml.org,2002:" + String(decoding: token.value, as: UTF8.self)
        default: throw error("undefined tag handle '\(String(decoding: token.handle, as: UTF8.self))'", at: token.start)
        }
    }

    /// A node: an alias, or properties (anchor, tag) and then a scalar or a collection.
    mutating func parseNode(block: Bool, indentlessSequence: Bool) throws(ParseFailure) -> Event? {
        var token = try scanner.peek()
        if token.kind == .alias {
            _ = try scanner.next()
            state = states.removeLast()
            return Event(kind: .alias, start: token.start, value: token.value)
        }
        var anchor: [UInt8]?
        var tag: String?
        let start = token.start
        while token.kind == .anchor || token.kind == .tag {
            if token.kind == .anchor {
                guard anchor == nil else { throw error("a node has two anchors", at: token.start) }
                anchor = token.value
            } else {
                guard tag == nil else { throw error("a node has two tags", at: token.start) }
                tag = try resolveTag(token)
            }
            _ = try scanner.next()
            token = try scanner.peek()
        }
        if indentlessSequence && token.kind == .blockEntry {
            state = .indentlessSequenceEntry
            return Event(kind: .sequenceStart, start: start, anchor: anchor, tag: tag)
        }
        switch token.kind {
        case .scalar:
            _ = try scanner.next()
            state = states.removeLast()
            return Event(kind: .scalar, start: start, value: token.value, anchor: anchor, tag: tag, style: token.style)
        case .flowSequenceStart:
            _ = try scanner.next()
            state = .flowSequenceFirstEntry
            return Event(kind: .sequenceStart, start: start, anchor: anchor, tag: tag, flow: true)
        case .flowMappingStart:
            _ = try scanner.next()
            state = .flowMappingFirstKey
            return Event(kind: .mappingStart, start: start, anchor: anchor, tag: tag, flow: true)
        case .blockSequenceStart where block:
            state = .blockSequenceFirstEntry
            return Event(kind: .sequenceStart, start: start, anchor: anchor, tag: tag)
        case .blockMappingStart where block:
            state = .blockMappingFirstKey
            return Event(kind: .mappingStart, start: start, anchor: anchor, tag: tag)
        default:
            guard anchor != nil || tag != nil else {
                throw error("expected a value (a scalar, a sequence or a mapping), found \(Self.describe(token.kind))", at: token.start)
            }
            // Properties with no content: an empty scalar.
            state = states.removeLast()
            return Event(kind: .scalar, start: start, anchor: anchor, tag: tag)
        }
    }

    static func describe(_ kind: YAMLScanner.Kind) -> String {
        switch kind {
        case .streamEnd: "the end of the input"
        case .blockEnd: "the end of a block"
        case .blockEntry: "'-'"
        case .flowEntry: "','"
        case .key: "'?'"
        case .value: "':'"
        case .flowSequenceEnd: "']'"
        case .flowMappingEnd: "'}'"
        case .documentStart: "'---'"
        case .documentEnd: "'...'"
        case .scalar: "a scalar"
        case .alias: "an alias"
        case .anchor: "an anchor"
        case .tag: "a tag"
        case .flowSequenceStart: "'['"
        case .flowMappingStart: "'{'"
        case .blockSequenceStart, .blockMappingStart: "a block collection"
        case .versionDirective, .tagDirective: "a directive"
        }
    }
}
