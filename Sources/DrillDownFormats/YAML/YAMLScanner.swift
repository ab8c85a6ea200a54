/// Splits YAML 1.2 text (valid UTF-8) into tokens for ``YAMLParser``: the design of libyaml's
/// scanner (indentation turned into block start/end tokens, a possible simple key remembered per
/// flow level and confirmed by the `:` after it), with the rules of YAML 1.2 where libyaml keeps
/// YAML 1.1's or is stricter than the specification: tabs as separation (never as indentation),
/// anchors and plain scalars with `:` inside (`&a:`, `{ ?foo: bar }`, `[:x]`), flow keys whose
/// `:` is on a later line or right after a JSON-like key (`"a":b`), `%YAML 1.2` and unknown
/// directives, block scalars at the top level's column 0, tabs and whitespace-only lines in
/// block scalars; and it refuses what libyaml lets through: comments not separated by
/// whitespace, flow and quoted continuation lines not indented past their block, block scalars
/// whose leading empty lines are more indented than their text, `-` alone in a flow collection.
///
/// Iterative (no recursion), so deep nesting cannot overflow the stack. Errors are byte offsets.
/// - Complexity: O(n) in the input size.
struct YAMLScanner {
    /// A position: byte offset, 0-based line and column (in characters).
    struct Mark {
        var offset = 0
        var line = 0
        var column = 0
    }

    enum Kind: Equatable {
        case streamEnd, versionDirective, tagDirective, documentStart, documentEnd
        case blockSequenceStart, blockMappingStart, blockEnd
        case flowSequenceStart, flowSequenceEnd, flowMappingStart, flowMappingEnd
        case blockEntry, flowEntry, key, value, alias, anchor, tag, scalar
    }

    enum Style: Equatable { case plain, single, double, literal, folded }

    struct Token {
        var kind: Kind
        var start: Mark
        /// Scalars: the value; anchors and aliases: the name; tags: the suffix; %TAG: the prefix.
        var value: [UInt8] = []
        /// Tags and %TAG: the handle (`!`, `!!`, `!name!`, empty for a verbatim tag).
        var handle: [UInt8] = []
        var style: Style = .plain
        /// %YAML: the version's major number.
        var major = 1
    }

    struct SimpleKey {
        var tokenNumber: Int
        var required: Bool
        var mark: Mark
        /// A tab comes right before the key: it cannot start a block mapping.
        var afterTab: Bool
    }

    let base: UnsafePointer<UInt8>
    let count: Int
    var mark = Mark()
    var tokens: [Token] = []
    var head = 0
    var tokensTaken = 0
    var done = false
    var indent = -1
    var indents: [Int] = []
    /// Open flow collections, innermost last: `true` for a mapping.
    var flows: [Bool] = []
    var allowSimpleKey = true
    /// One per flow level (0: block context).
    var simpleKeys: [SimpleKey?] = [nil]
    /// The levels that hold a possible simple key, lowest first from ``activeStart`` (lower levels'
    /// keys come earlier in the text): checks touch these, not every open level of deep nesting.
    var activeLevels: [Int] = []
    var activeStart = 0
    /// The line of the last full check for stale keys.
    var staleLine = 0
    /// The number of tokens made when the last was a quoted scalar or a flow collection's end (a JSON-like key: a `:` after it is a value indicator in flow).
    var jsonLikeEnd = -1
    /// The current line's indentation holds a tab (before its first token).
    var tabInIndentation = false
    /// The blanks right before the current token hold a tab: it cannot start a block collection.
    var tabBefore = false
    /// The spaces that start the current line.
    var lineSpaces = 0
    /// The offset where the current line's first token starts, or -2 before it is found.
    var lineStart = 0

    /// A scanner of `buffer` (valid UTF-8, not empty); refuses characters YAML does not allow
    /// in a document (C0 controls but tab and line breaks, DEL, C1 controls but NEL, U+FFFE, U+FFFF).
    init(_ buffer: UnsafeBufferPointer<UInt8>) throws(ParseFailure) {
        base = buffer.baseAddress!
        count = buffer.count
        if count >= 3, base[0] == 0xEF, base[1] == 0xBB, base[2] == 0xBF { mark.offset = 3 }
        for i in 0 ..< count {
            let c = base[i]
            let next: UInt8 = i + 1 < count ? base[i + 1] : 0
            let bad = (c < 0x20 && c != 0x09 && c != 0x0A && c != 0x0D) || c == 0x7F
                || (c == 0xC2 && next >= 0x80 && next <= 0x9F && next != 0x85)
                || (c == 0xEF && next == 0xBF && i + 2 < count && base[i + 2] >= 0xBE)
            if bad {
                throw ParseFailure(offset: i, "a control character (byte 0x\(String(c, radix: 16, uppercase: true))) that YAML does not allow; write it as an escape in double quotes")
            }
        }
    }

    // MARK: Characters

    @inline(__always) func at(_ k: Int = 0) -> UInt8 {
        let i = mark.offset + k
        return i < count ? base[i] : 0
    }

    @inline(__always) static func isBreak(_ c: UInt8) -> Bool { c == 0x0A || c == 0x0D }
    @inline(__always) static func isBlank(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 }
    /// Space, tab, line break or the end.
    @inline(__always) static func isBlankOrEnd(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D || c == 0 }
    @inline(__always) static func isFlowIndicator(_ c: UInt8) -> Bool { c == 0x2C || c == 0x5B || c == 0x5D || c == 0x7B || c == 0x7D }

    var atEnd: Bool { mark.offset >= count }

    /// Moves past one character (a whole UTF-8 sequence), or a line break (`\r\n` as one).
    mutating func advance() {
        let c = at()
        if c == 0x0D || c == 0x0A {
            mark.offset += (c == 0x0D && at(1) == 0x0A) ? 2 : 1
            mark.line += 1
            mark.column = 0
            return
        }
        mark.offset += c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4
        mark.column += 1
    }

    /// Moves past one character, appending its bytes to `bytes`.
    mutating func take(into bytes: inout [UInt8]) {
        let from = mark.offset
        advance()
        bytes.append(contentsOf: UnsafeBufferPointer(start: base + from, count: min(mark.offset, count) - from))
    }

    mutating func advance(_ n: Int) { for _ in 0 ..< n { advance() } }

    /// Whether `---` or `...` starts at the cursor, at column 0, followed by a blank or the end.
    func atDocumentMarker() -> Bool {
        guard mark.column == 0 else { return false }
        let c = at()
        guard c == 0x2D || c == 0x2E, at(1) == c, at(2) == c else { return false }
        return Self.isBlankOrEnd(at(3))
    }

    func error(_ message: String, at where: Mark? = nil) -> ParseFailure {
        ParseFailure(offset: min((`where` ?? mark).offset, count), message)
    }

    // MARK: Tokens

    /// The next token, without taking it.
    mutating func peek() throws(ParseFailure) -> Token {
        while needMoreTokens() { try fetchNextToken() }
        // Past the stream's end there is only its end.
        return head < tokens.count ? tokens[head] : Token(kind: .streamEnd, start: mark)
    }

    /// Takes the next token.
    mutating func next() throws(ParseFailure) -> Token {
        let token = try peek()
        head += 1
        tokensTaken += 1
        if head > 64, head * 2 > tokens.count {
            tokens.removeFirst(head)
            head = 0
        }
        return token
    }

    mutating func needMoreTokens() -> Bool {
        if done { return false }
        if head == tokens.count { return true }
        staleSimpleKeys()
        // The lowest level's key is the earliest.
        return activeStart < activeLevels.count && simpleKeys[activeLevels[activeStart]]?.tokenNumber == tokensTaken
    }

    mutating func fetchNextToken() throws(ParseFailure) {
        try scanToNextToken()
        staleSimpleKeys()
        try unwindIndent(mark.column)
        let c = at()
        if atEnd { return try fetchStreamEnd() }
        if c == 0x25, mark.column == 0 { return try fetchDirective() }
        if atDocumentMarker() { return try fetchDocumentIndicator(c == 0x2D ? .documentStart : .documentEnd) }
        // A token on a new line inside a flow collection must be indented past the enclosing block;
        // a closing bracket may stand at the block's column (`key: [` … `]`), as libyaml allowed.
        if !flows.isEmpty, indent >= 0, lineSpaces <= indent, lineStart == mark.offset, c != 0x5D && c != 0x7D || lineSpaces < indent {
            throw error("a line inside a flow collection must be indented more than the block that holds it (past column \(indent + 1))")
        }
        switch c {
        case 0x5B: return try fetchFlowStart(mapping: false)
        case 0x7B: return try fetchFlowStart(mapping: true)
        case 0x5D: return try fetchFlowEnd(mapping: false)
        case 0x7D: return try fetchFlowEnd(mapping: true)
        case 0x2C: return try fetchFlowEntry()
        default: break
        }
        let next = at(1)
        if c == 0x2D, Self.isBlankOrEnd(next) {
            if !flows.isEmpty { throw error("'-' alone is not a value in a flow collection; quote it") }
            return try fetchBlockEntry()
        }
        if c == 0x3F, Self.isBlankOrEnd(next) { return try fetchKey() }
        if c == 0x3A {
            let adjacent = !flows.isEmpty && jsonLikeEnd == tokensTaken + tokens.count - head
            if Self.isBlankOrEnd(next) || (!flows.isEmpty && (Self.isFlowIndicator(next) || adjacent)) {
                return try fetchValue()
            }
        }
        switch c {
        case 0x2A: return try fetchAnchor(alias: true)
        case 0x26: return try fetchAnchor(alias: false)
        case 0x21: return try fetchTag()
        case 0x7C where flows.isEmpty: return try fetchBlockScalar(literal: true)
        case 0x3E where flows.isEmpty: return try fetchBlockScalar(literal: false)
        case 0x27: return try fetchQuoted(double: false)
        case 0x22: return try fetchQuoted(double: true)
        default: break
        }
        if canStartPlain(c, next) { return try fetchPlain() }
        if c == 0x2D && !flows.isEmpty { throw error("'-' alone is not a value in a flow collection; quote it") }
        throw error("found character '\(Self.describe(c))' that cannot start any token")
    }

    static func describe(_ c: UInt8) -> String {
        c == 0x09 ? "\\t" : c < 0x20 ? "\\u{\(String(c, radix: 16))}" : c < 0x80 ? String(UnicodeScalar(c)) : "non-ASCII"
    }

    func canStartPlain(_ c: UInt8, _ next: UInt8) -> Bool {
        switch c {
        case 0x2D, 0x3F, 0x3A:
            return !Self.isBlankOrEnd(next) && !(!flows.isEmpty && Self.isFlowIndicator(next))
        case 0x2C, 0x5B, 0x5D, 0x7B, 0x7D, 0x23, 0x26, 0x2A, 0x21, 0x7C, 0x3E, 0x27, 0x22, 0x25, 0x40, 0x60:
            return false
        case 0x20, 0x09, 0x0A, 0x0D:
            return false
        default:
            return true
        }
    }

    // MARK: Simple keys

    /// Drops the possible simple keys that can no longer be keys: a block key must be on one line
    /// and short; in a flow mapping a key may be followed by its ':' on a later line.
    /// - Complexity: O(1) amortized on a line; O(keys) at a new line.
    mutating func staleSimpleKeys() {
        guard activeStart < activeLevels.count else { return }
        if mark.line != staleLine {
            staleLine = mark.line
            var kept: [Int] = []
            for level in activeLevels[activeStart...] {
                guard let key = simpleKeys[level] else { continue }
                let inFlowMapping = level > 0 && flows[level - 1]
                if (!inFlowMapping && key.mark.line != mark.line) || mark.offset - key.mark.offset > 1024 {
                    drop(key, at: level)
                } else {
                    kept.append(level)
                }
            }
            activeLevels = kept
            activeStart = 0
            return
        }
        while activeStart < activeLevels.count {
            let level = activeLevels[activeStart]
            guard let key = simpleKeys[level] else {
                activeStart += 1
                continue
            }
            guard mark.offset - key.mark.offset > 1024 else { return }
            drop(key, at: level)
            activeStart += 1
        }
    }

    mutating func drop(_ key: SimpleKey, at level: Int) {
        simpleKeys[level] = nil
        if key.required { pendingError = error("could not find the expected ':' of this key", at: key.mark) }
    }

    /// A required key (at its block mapping's indentation) that lost its chance of a ':', reported at the next ':' or the end.
    var pendingError: ParseFailure?

    mutating func savePossibleSimpleKey() throws(ParseFailure) {
        let required = flows.isEmpty && indent == mark.column
        guard allowSimpleKey else { return }
        try removePossibleSimpleKey()
        activeLevels.append(flows.count)
        simpleKeys[flows.count] = SimpleKey(
            tokenNumber: tokensTaken + tokens.count - head, required: required, mark: mark,
            afterTab: tabBefore)
    }

    mutating func removePossibleSimpleKey() throws(ParseFailure) {
        if let key = simpleKeys[flows.count], key.required {
            throw error("could not find the expected ':' of this key", at: key.mark)
        }
        clearSimpleKey()
    }

    /// Forgets the current level's possible simple key.
    mutating func clearSimpleKey() {
        guard simpleKeys[flows.count] != nil else { return }
        simpleKeys[flows.count] = nil
        if activeLevels.count > activeStart, activeLevels.last == flows.count { activeLevels.removeLast() }
        if activeStart >= activeLevels.count {
            activeLevels.removeAll(keepingCapacity: true)
            activeStart = 0
        }
    }

    // MARK: Indentation

    mutating func unwindIndent(_ column: Int) throws(ParseFailure) {
        guard flows.isEmpty else { return }
        while indent > column {
            tokens.append(Token(kind: .blockEnd, start: mark))
            indent = indents.removeLast()
        }
    }

    mutating func addIndent(_ column: Int) -> Bool {
        guard indent < column else { return false }
        indents.append(indent)
        indent = column
        return true
    }

    // MARK: Fetchers

    mutating func fetchStreamEnd() throws(ParseFailure) {
        if let pendingError { throw pendingError }
        try unwindIndent(-1)
        try removePossibleSimpleKey()
        if !flows.isEmpty { throw error("the flow collection is not closed: expected ']' or '}' before the end") }
        allowSimpleKey = false
        tokens.append(Token(kind: .streamEnd, start: mark))
        done = true
    }

    mutating func fetchDirective() throws(ParseFailure) {
        try unwindIndent(-1)
        try removePossibleSimpleKey()
        allowSimpleKey = false
        let start = mark
        advance()
        var name: [UInt8] = []
        while !Self.isBlankOrEnd(at()) {
            take(into: &name)
        }
        var token = Token(kind: .versionDirective, start: start)
        switch name {
        case Array("YAML".utf8):
            skipBlanks()
            var major: [UInt8] = []
            while at() >= 0x30 && at() <= 0x39 { take(into: &major) }
            guard !major.isEmpty, at() == 0x2E else { throw error("expected a version like 1.2 in the %YAML directive") }
            advance()
            var minor = 0
            while at() >= 0x30 && at() <= 0x39 { minor += 1; advance() }
            guard minor > 0, Self.isBlankOrEnd(at()) else { throw error("expected a version like 1.2 in the %YAML directive") }
            token.major = Int(String(decoding: major, as: UTF8.self)) ?? 0
            tokens.append(token)
        case Array("TAG".utf8):
            token.kind = .tagDirective
            skipBlanks()
            guard at() == 0x21 else { throw error("expected a tag handle like !name! in the %TAG directive") }
            while !Self.isBlankOrEnd(at()) { take(into: &token.handle) }
            guard token.handle.last == 0x21 else { throw error("expected a tag handle like !name! in the %TAG directive") }
            skipBlanks()
            while !Self.isBlankOrEnd(at()) { take(into: &token.value) }
            guard !token.value.isEmpty else { throw error("expected a tag prefix in the %TAG directive") }
            tokens.append(token)
        default:
            // A reserved directive: ignored, as the specification asks.
            while !Self.isBreak(at()) && !atEnd { advance() }
        }
        try scanLineEnd()
    }

    mutating func skipBlanks() {
        while Self.isBlank(at()) { advance() }
    }

    /// After a directive or a block scalar's header: blanks, an optional comment, then a line break or the end.
    mutating func scanLineEnd() throws(ParseFailure) {
        let before = mark.offset
        skipBlanks()
        if at() == 0x23 {
            guard mark.offset > before else { throw error("a comment must be separated from what precedes it by a space") }
            while !Self.isBreak(at()) && !atEnd { advance() }
        }
        guard Self.isBreak(at()) || atEnd else { throw error("expected a comment or a line break, found '\(Self.describe(at()))'") }
    }

    mutating func fetchDocumentIndicator(_ kind: Kind) throws(ParseFailure) {
        try unwindIndent(-1)
        try removePossibleSimpleKey()
        allowSimpleKey = false
        let start = mark
        advance(3)
        tokens.append(Token(kind: kind, start: start))
        if kind == .documentEnd { try scanLineEnd() }
    }

    mutating func fetchFlowStart(mapping: Bool) throws(ParseFailure) {
        try savePossibleSimpleKey()
        flows.append(mapping)
        simpleKeys.append(nil)
        allowSimpleKey = true
        let start = mark
        advance()
        tokens.append(Token(kind: mapping ? .flowMappingStart : .flowSequenceStart, start: start))
    }

    mutating func fetchFlowEnd(mapping: Bool) throws(ParseFailure) {
        try removePossibleSimpleKey()
        guard let open = flows.last else { throw error("found '\(mapping ? "}" : "]")' outside a flow collection") }
        guard open == mapping else { throw error("found '\(mapping ? "}" : "]")' where '\(open ? "}" : "]")' closes the open flow collection") }
        flows.removeLast()
        simpleKeys.removeLast()
        allowSimpleKey = false
        let start = mark
        advance()
        tokens.append(Token(kind: mapping ? .flowMappingEnd : .flowSequenceEnd, start: start))
        markJSONLike()
    }

    mutating func markJSONLike() {
        jsonLikeEnd = tokensTaken + tokens.count - head
    }

    mutating func fetchFlowEntry() throws(ParseFailure) {
        allowSimpleKey = true
        try removePossibleSimpleKey()
        let start = mark
        advance()
        tokens.append(Token(kind: .flowEntry, start: start))
    }

    mutating func fetchBlockEntry() throws(ParseFailure) {
        guard allowSimpleKey else { throw error("a block sequence entry is not allowed here") }
        if tabBefore { throw error("a tab before a block sequence entry; use spaces") }
        if addIndent(mark.column) { tokens.append(Token(kind: .blockSequenceStart, start: mark)) }
        allowSimpleKey = true
        try removePossibleSimpleKey()
        let start = mark
        advance()
        tokens.append(Token(kind: .blockEntry, start: start))
    }

    mutating func fetchKey() throws(ParseFailure) {
        if flows.isEmpty {
            guard allowSimpleKey else { throw error("a mapping key is not allowed here") }
            if tabBefore { throw error("a tab before a mapping key; use spaces") }
            if addIndent(mark.column) { tokens.append(Token(kind: .blockMappingStart, start: mark)) }
        }
        allowSimpleKey = flows.isEmpty
        try removePossibleSimpleKey()
        let start = mark
        advance()
        tokens.append(Token(kind: .key, start: start))
    }

    mutating func fetchValue() throws(ParseFailure) {
        if let pendingError { throw pendingError }
        if let key = simpleKeys[flows.count] {
            clearSimpleKey()
            let position = key.tokenNumber - tokensTaken + head
            tokens.insert(Token(kind: .key, start: key.mark), at: position)
            if flows.isEmpty, addIndent(key.mark.column) {
                if key.afterTab { throw error("a tab before a mapping key; use spaces", at: key.mark) }
                tokens.insert(Token(kind: .blockMappingStart, start: key.mark), at: position)
            }
            allowSimpleKey = false
        } else {
            if flows.isEmpty {
                guard allowSimpleKey else { throw error("a mapping value is not allowed here") }
                if addIndent(mark.column) { tokens.append(Token(kind: .blockMappingStart, start: mark)) }
            }
            allowSimpleKey = flows.isEmpty
        }
        let start = mark
        advance()
        tokens.append(Token(kind: .value, start: start))
    }

    mutating func fetchAnchor(alias: Bool) throws(ParseFailure) {
        try savePossibleSimpleKey()
        allowSimpleKey = false
        let start = mark
        advance()
        var name: [UInt8] = []
        while !Self.isBlankOrEnd(at()) && !Self.isFlowIndicator(at()) {
            take(into: &name)
        }
        guard !name.isEmpty else { throw error("expected the name of an \(alias ? "alias" : "anchor")", at: start) }
        tokens.append(Token(kind: alias ? .alias : .anchor, start: start, value: name))
    }

    mutating func fetchTag() throws(ParseFailure) {
        try savePossibleSimpleKey()
        allowSimpleKey = false
        let start = mark
        var token = Token(kind: .tag, start: start)
        if at(1) == 0x3C {
            advance(2)
            while at() != 0x3E {
                guard !Self.isBlankOrEnd(at()) else { throw error("expected '>' closing the verbatim tag") }
                take(into: &token.value)
            }
            advance()
            guard !token.value.isEmpty else { throw error("a verbatim tag must not be empty", at: start) }
        } else {
            // `!name!suffix`, `!!suffix` or `!suffix`.
            var k = 1
            while at(k) != 0 && Self.isWordCharacter(at(k)) { k += 1 }
            if at(k) == 0x21 {
                for _ in 0 ... k { take(into: &token.handle) }
            } else {
                token.handle = [0x21]
                advance()
            }
            while !Self.isBlankOrEnd(at()) && !Self.isFlowIndicator(at()) {
                guard at() != 0x21 else { throw error("a tag's suffix cannot hold '!'") }
                take(into: &token.value)
            }
            if token.value.isEmpty && token.handle != [0x21] { throw error("expected a tag's suffix after its handle", at: start) }
        }
        guard Self.isBlankOrEnd(at()) || (!flows.isEmpty && Self.isFlowIndicator(at())) else {
            throw error("expected a space after the tag")
        }
        token.value = Self.percentDecoded(token.value)
        tokens.append(token)
    }

    static func isWordCharacter(_ c: UInt8) -> Bool {
        (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x2D
    }

    static func percentDecoded(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.contains(0x25) else { return bytes }
        var out: [UInt8] = []
        var i = 0
        while i < bytes.count {
            if bytes[i] == 0x25, i + 2 < bytes.count, let v = UInt8(String(decoding: bytes[i + 1 ... i + 2], as: UTF8.self), radix: 16) {
                out.append(v)
                i += 3
            } else {
                out.append(bytes[i])
                i += 1
            }
        }
        return out
    }

    // MARK: Whitespace and comments

    mutating func scanToNextToken() throws(ParseFailure) {
        if mark.offset == 0 || mark.column == 0 { beginLine() }
        tabBefore = false
        while true {
            let before = mark.offset
            while at() == 0x20 || at() == 0x09 {
                if at() == 0x09 {
                    if lineStart == -2 { tabInIndentation = true }
                    tabBefore = true
                } else if lineStart == -2 && !tabInIndentation {
                    lineSpaces += 1
                }
                advance()
            }
            if at() == 0x23 {
                let previous = mark.offset > 0 ? base[mark.offset - 1] : 0x0A
                guard mark.offset > before || Self.isBlankOrEnd(previous) || previous == 0xBF && mark.offset == 3 else {
                    throw error("a comment must be separated from what precedes it by a space")
                }
                while !Self.isBreak(at()) && !atEnd { advance() }
            }
            guard Self.isBreak(at()) else { break }
            advance()
            beginLine()
            tabBefore = false
            if flows.isEmpty { allowSimpleKey = true }
        }
        if lineStart == -2 { lineStart = mark.offset }
    }

    /// At a line's start: its first token is yet to come.
    mutating func beginLine() {
        lineStart = -2
        tabInIndentation = false
        lineSpaces = 0
    }
}
