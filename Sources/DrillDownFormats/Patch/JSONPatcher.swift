#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import DrillDownCore

/// Turns ``TreeDiff`` edits into replacements of the JSON text's own bytes: a changed scalar or
/// key is rewritten in place, a new member or element is laid out like its siblings (one per
/// line at their indentation, or on one line in a compact container), a removed one takes its
/// separator with it. Everything else (spacing, key order, number spellings) stays as written.
///
/// The text is scanned once, descending only into the containers the edits touch.
struct JSONPatcher {
    let text: [UInt8]
    let new: TreeStore
    let layout: TextLayout
    let unit: [UInt8]
    let pretty: Bool

    init(text: [UInt8], new: TreeStore) {
        self.text = text
        self.new = new
        layout = TextLayout(text: text)
        unit = layout.indentUnit()
        var end = text.count
        while end > 0, Self.isSpace(text[end - 1]) { end -= 1 }
        pretty = text[..<end].contains(0x0A)
    }

    /// The replacements, or `nil` when the text does not have the shape the edits expect.
    func textEdits(for edits: [TreeDiff.Edit]) throws(WriteFailure) -> [TextEdit]? {
        let root = SpanNeed()
        for edit in edits {
            switch edit {
            case .replace(let path, _), .rekey(let path, _): root.need(path)
            case .splice(let path, _, _): root.need(path).wantChildren = true
            }
        }
        let scanner = Scanner(text: text)
        let start = scanner.space(0)
        guard start < text.count, scanner.value(at: start, need: root) != nil else { return nil }
        var out: [TextEdit] = []
        for edit in edits {
            switch edit {
            case .replace(let path, let id):
                guard let span = root.find(path)?.span else { return nil }
                let indent = layout.indent(ofLineAt: span.itemStart)
                out.append(TextEdit(range: span.start ..< span.end, bytes: try render(id, keyed: false, indent: indent)))
            case .rekey(let path, let id):
                guard let span = root.find(path)?.span, span.keyStart >= 0 else { return nil }
                var key: [UInt8] = []
                JSONWriter.writeString(new.keyBytes(of: id), to: &key)
                out.append(TextEdit(range: span.keyStart ..< span.keyEnd, bytes: key))
            case .splice(let path, let range, let ids):
                guard let need = root.find(path), let span = need.span, let kids = need.children else { return nil }
                guard let edit = try splice(span, kids, range, ids, keyed: text[span.start] == 0x7B) else { return nil }
                out.append(edit)
            }
        }
        return out
    }

    /// One replacement for a splice of the container `span` whose children are `kids`.
    func splice(_ span: Span, _ kids: [Span], _ range: Range<Int>, _ ids: [NodeID], keyed: Bool) throws(WriteFailure) -> TextEdit? {
        let n = kids.count
        guard range.upperBound <= n else { return nil }
        let open = span.start, close = span.end - 1
        let containerIndent = layout.indent(ofLineAt: span.itemStart)
        if n - range.count + ids.count == 0 { return TextEdit(range: open + 1 ..< close, bytes: []) }
        let itemIndent: [UInt8]
        if n > 0, layout.startsLine(kids[0].itemStart) {
            itemIndent = layout.indent(ofLineAt: kids[0].itemStart)
        } else {
            itemIndent = containerIndent + unit
        }
        var items: [[UInt8]] = []
        for id in ids { items.append(try render(id, keyed: keyed, indent: itemIndent)) }
        if n == 0 {
            var bytes: [UInt8] = []
            let separator: [UInt8] = pretty ? [0x2C, 0x0A] + itemIndent : [0x2C]
            if pretty { bytes += [0x0A] + itemIndent }
            bytes += Array(items.joined(separator: separator))
            if pretty { bytes += [0x0A] + containerIndent }
            return TextEdit(range: open + 1 ..< close, bytes: bytes)
        }
        return TextEdit.replacingItems(range, starts: kids.map(\.itemStart), ends: kids.map(\.end), with: items, in: text)
    }

    /// The new tree's node `id` as JSON text placed at `indent` (with its key when `keyed`).
    func render(_ id: NodeID, keyed: Bool, indent: [UInt8]) throws(WriteFailure) -> [UInt8] {
        var out: [UInt8] = []
        if keyed {
            JSONWriter.writeString(new.keyBytes(of: id), to: &out)
            out += pretty ? [0x3A, 0x20] : [0x3A]
        }
        let rendered = try JSONWriter.data(new.subtree(at: id))
        out += pretty ? TextLayout.reindent(rendered, base: indent, unit: unit) : Self.compact(rendered)
        return out
    }

    /// `json` without the whitespace between its tokens.
    static func compact(_ json: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var inString = false, escaped = false
        for c in json {
            if inString {
                out.append(c)
                if escaped { escaped = false } else if c == 0x5C { escaped = true } else if c == 0x22 { inString = false }
            } else if !isSpace(c) {
                out.append(c)
                if c == 0x22 { inString = true }
            }
        }
        return out
    }

    static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 }

    // MARK: Scanning

    /// Where a value is written: its member's key (if any), the value, and where its item starts (the key, else the value).
    struct Span {
        var itemStart: Int
        var keyStart = -1
        var keyEnd = -1
        var start: Int
        var end: Int
    }

    /// The nodes the edits need, as a tree of store-path steps; filled in by the scan.
    final class SpanNeed {
        var kids: [Int: SpanNeed] = [:]
        var wantChildren = false
        var span: Span?
        var children: [Span]?

        @discardableResult
        func need(_ path: [Int]) -> SpanNeed {
            var n = self
            for i in path {
                if let next = n.kids[i] { n = next } else {
                    let next = SpanNeed()
                    n.kids[i] = next
                    n = next
                }
            }
            return n
        }

        func find(_ path: [Int]) -> SpanNeed? {
            var n = self
            for i in path {
                guard let next = n.kids[i] else { return nil }
                n = next
            }
            return n
        }
    }

    /// A skip scanner over valid JSON (the text read as the old tree).
    struct Scanner {
        let text: [UInt8]

        func space(_ at: Int) -> Int {
            var i = at
            while i < text.count, JSONPatcher.isSpace(text[i]) { i += 1 }
            return i
        }

        /// The end of the string starting at `at` (after its closing quote).
        func string(_ at: Int) -> Int { text.withUnsafeBufferPointer { Self.stringEnd($0, at) } }

        /// The end of the string starting at `at` in `p`: the next quote that an even number of
        /// backslashes precedes, found with `memchr` (most of a document's bytes are in strings).
        static func stringEnd(_ p: UnsafeBufferPointer<UInt8>, _ at: Int) -> Int {
            guard let base = p.baseAddress else { return p.count }
            let n = p.count
            var i = at + 1
            while i < n {
                guard let found = memchr(base + i, 0x22, n - i) else { return n }
                let q = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
                var b = q - 1, slashes = 0
                while b > at, p[b] == 0x5C {
                    slashes += 1
                    b -= 1
                }
                if slashes % 2 == 0 { return q + 1 }
                i = q + 1
            }
            return n
        }

        /// The end of the value at `at`, skipping containers without looking inside.
        /// - Complexity: O(length of the value), through the text's buffer without bounds checks
        ///   per byte (a write of a large file scans most of its text).
        func skip(_ at: Int) -> Int {
            let c = text[at]
            if c == 0x22 { return string(at) }
            if c == 0x7B || c == 0x5B {
                return text.withUnsafeBufferPointer { p -> Int in
                    let n = p.count
                    var depth = 0
                    var i = at
                    while i < n {
                        let d = p[i]
                        if d == 0x22 {
                            i = Self.stringEnd(p, i)
                            continue
                        }
                        if d == 0x7B || d == 0x5B {
                            depth += 1
                        } else if d == 0x7D || d == 0x5D {
                            depth -= 1
                            if depth == 0 { return i + 1 }
                        }
                        i += 1
                    }
                    return n
                }
            }
            var i = at
            while i < text.count, !JSONPatcher.isSpace(text[i]), text[i] != 0x2C, text[i] != 0x7D, text[i] != 0x5D { i += 1 }
            return i
        }

        /// Scans the value at `at`, recording spans for `need` and its descendants; returns its end.
        func value(at: Int, need: SpanNeed?, itemStart: Int? = nil, keyStart: Int = -1, keyEnd: Int = -1) -> Int? {
            guard at < text.count else { return nil }
            guard let need else { return skip(at) }
            let c = text[at]
            var end: Int
            if c == 0x7B || c == 0x5B, !need.kids.isEmpty || need.wantChildren {
                let isObject = c == 0x7B
                let close: UInt8 = isObject ? 0x7D : 0x5D
                var children: [Span] = []
                var q = space(at + 1)
                var index = 0
                guard q < text.count else { return nil }
                if text[q] == close {
                    end = q + 1
                } else {
                    while true {
                        let item = q
                        var ks = -1, ke = -1
                        if isObject {
                            guard text[q] == 0x22 else { return nil }
                            ks = q
                            ke = string(q)
                            q = space(ke)
                            guard q < text.count, text[q] == 0x3A else { return nil }
                            q = space(q + 1)
                        }
                        guard let valueEnd = value(at: q, need: need.kids[index], itemStart: item, keyStart: ks, keyEnd: ke) else { return nil }
                        if need.wantChildren { children.append(Span(itemStart: item, keyStart: ks, keyEnd: ke, start: q, end: valueEnd)) }
                        q = space(valueEnd)
                        guard q < text.count else { return nil }
                        if text[q] == 0x2C {
                            q = space(q + 1)
                            index += 1
                            continue
                        }
                        guard text[q] == close else { return nil }
                        end = q + 1
                        break
                    }
                }
                if need.wantChildren { need.children = children }
            } else {
                end = skip(at)
            }
            need.span = Span(itemStart: itemStart ?? at, keyStart: keyStart, keyEnd: keyEnd, start: at, end: end)
            return end
        }
    }
}
