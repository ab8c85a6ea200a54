/// Decodes the byte stream from a terminal in raw mode into keys.
///
/// Understands CSI (`ESC [`) and SS3 (`ESC O`) sequences for arrows, Home/End, PgUp/PgDn,
/// Delete and F1–F12, both Backspace bytes (0x7F and 0x08), and UTF-8 text. A lone `ESC`
/// is ambiguous (it also starts every sequence): it stays pending until more bytes arrive or
/// the caller calls ``flush()`` after a short timeout.
///
/// A bracketed paste (`ESC[200~` … `ESC[201~`, turned on by ``RawTerminal``) becomes one
/// ``Key/paste(_:)`` holding the text, however many reads it arrives in: pasted text is never
/// run as keys. The text is collected in linear time; past ``maxPaste`` bytes the rest is dropped.
///
/// ```swift
/// var decoder = KeyDecoder()
/// decoder.feed(Array("\u{1B}[Aj".utf8))   // [.up, .character("j")]
/// decoder.feed([0x1B])                    // [] — pending
/// decoder.flush()                         // [.escape]
/// ```
public struct KeyDecoder: Sendable {
    var buffer: [UInt8] = []
    /// Whether a bracketed paste has started and not ended.
    var pasting = false
    /// The text of the paste so far.
    var pasted: [UInt8] = []

    /// The most bytes one paste keeps (16 MiB).
    public static let maxPaste = 16 << 20
    static let pasteStart: [UInt8] = Array("\u{1B}[200~".utf8)
    static let pasteEnd: [UInt8] = Array("\u{1B}[201~".utf8)

    /// Creates a decoder.
    public init() {}

    /// Whether bytes are waiting for the rest of a sequence (the caller should flush after a
    /// timeout). Not during a paste, which waits for its end however long it takes.
    public var hasPending: Bool { !buffer.isEmpty && !pasting }

    /// Adds bytes and returns the keys completed by them.
    /// - Complexity: O(number of bytes), also for a paste that arrives in many reads.
    public mutating func feed(_ bytes: some Sequence<UInt8>) -> [Key] {
        buffer.append(contentsOf: bytes)
        var keys: [Key] = []
        var i = 0
        while i < buffer.count {
            if pasting {
                if let end = find(Self.pasteEnd, from: i) {
                    keep(i ..< end)
                    i = end + Self.pasteEnd.count
                    pasting = false
                    keys.append(.paste(String(decoding: pasted, as: UTF8.self)))
                    pasted = []
                    continue
                }
                // Keep a tail that may be the start of the end marker; take the rest.
                var tail = buffer.count
                let lowest = max(i, buffer.count - (Self.pasteEnd.count - 1))
                for k in stride(from: buffer.count - 1, through: lowest, by: -1) where buffer[k] == 0x1B {
                    tail = k
                    break
                }
                keep(i ..< tail)
                i = tail
                break
            }
            if buffer[i] == 0x1B, starts(with: Self.pasteStart, at: i) {
                pasting = true
                i += Self.pasteStart.count
                continue
            }
            guard let (key, used) = decode(at: i) else { break }
            keys.append(key)
            i += used
        }
        buffer.removeFirst(i)
        return keys
    }

    /// Adds pasted bytes, up to ``maxPaste``.
    mutating func keep(_ range: Range<Int>) {
        let room = Self.maxPaste - pasted.count
        guard room > 0 else { return }
        pasted.append(contentsOf: buffer[range.lowerBound ..< min(range.upperBound, range.lowerBound + room)])
    }

    func starts(with marker: [UInt8], at i: Int) -> Bool {
        guard i + marker.count <= buffer.count else { return false }
        for k in 0 ..< marker.count where buffer[i + k] != marker[k] { return false }
        return true
    }

    /// The index of the first `marker` at or after `i`.
    func find(_ marker: [UInt8], from i: Int) -> Int? {
        var j = i
        while j + marker.count <= buffer.count {
            if buffer[j] == marker[0], starts(with: marker, at: j) { return j }
            j += 1
        }
        return nil
    }

    /// Gives up waiting: pending bytes become keys (a lone `ESC` becomes ``Key/escape``).
    /// A paste in progress keeps waiting for its end.
    public mutating func flush() -> [Key] {
        guard !buffer.isEmpty, !pasting else { return [] }
        var keys: [Key] = []
        if buffer[0] == 0x1B {
            keys.append(.escape)
            buffer.removeFirst()
        }
        let rest = buffer
        buffer = []
        keys += feed(rest)
        if !buffer.isEmpty {
            buffer = []
            keys.append(.unknown)
        }
        return keys
    }

    /// The key at `i` and the bytes it used, or `nil` when the bytes so far are incomplete.
    func decode(at i: Int) -> (Key, Int)? {
        let b = buffer[i]
        switch b {
        case 0x1B: return decodeEscape(at: i)
        case 0x0D, 0x0A: return (.enter, 1)
        case 0x09: return (.tab, 1)
        case 0x7F, 0x08: return (.backspace, 1)
        case 0x00: return (.control(" "), 1)
        case 0x01 ... 0x1A: return (.control(Character(Unicode.Scalar(b + 0x60))), 1)
        case 0x1C ... 0x1F: return (.unknown, 1)
        case 0x20 ..< 0x7F: return (.character(Character(Unicode.Scalar(b))), 1)
        default: return decodeUTF8(at: i)
        }
    }

    func decodeUTF8(at i: Int) -> (Key, Int)? {
        let b = buffer[i]
        let length = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1
        if length == 1 { return (.unknown, 1) }
        guard i + length <= buffer.count else { return nil }
        let s = String(decoding: buffer[i ..< i + length], as: UTF8.self)
        guard let c = s.first, s.unicodeScalars.first?.value != 0xFFFD else { return (.unknown, 1) }
        return (.character(c), length)
    }

    func decodeEscape(at i: Int) -> (Key, Int)? {
        guard i + 1 < buffer.count else { return nil }
        let next = buffer[i + 1]
        if next == 0x1B { return (.escape, 1) }
        if next == UInt8(ascii: "O") {
            guard i + 2 < buffer.count else { return nil }
            let key: Key =
                switch buffer[i + 2] {
                case UInt8(ascii: "A"): .up
                case UInt8(ascii: "B"): .down
                case UInt8(ascii: "C"): .right
                case UInt8(ascii: "D"): .left
                case UInt8(ascii: "H"): .home
                case UInt8(ascii: "F"): .end
                case UInt8(ascii: "M"): .enter
                case UInt8(ascii: "P"): .function(1)
                case UInt8(ascii: "Q"): .function(2)
                case UInt8(ascii: "R"): .function(3)
                case UInt8(ascii: "S"): .function(4)
                default: .unknown
                }
            return (key, 3)
        }
        guard next == UInt8(ascii: "[") else { return (.escape, 1) }
        // CSI: parameters 0x30–0x3F, intermediates 0x20–0x2F, final byte 0x40–0x7E.
        var j = i + 2
        while j < buffer.count, (0x20 ... 0x3F).contains(buffer[j]) { j += 1 }
        guard j < buffer.count else { return j - i > 32 ? (.unknown, j - i) : nil }
        let final = buffer[j]
        let params = String(decoding: buffer[(i + 2) ..< j], as: UTF8.self)
        let first = Int(params.split(separator: ";").first ?? "") ?? 0
        let key: Key =
            switch final {
            case UInt8(ascii: "A"): .up
            case UInt8(ascii: "B"): .down
            case UInt8(ascii: "C"): .right
            case UInt8(ascii: "D"): .left
            case UInt8(ascii: "H"): .home
            case UInt8(ascii: "F"): .end
            case UInt8(ascii: "Z"): .backTab
            case UInt8(ascii: "~"):
                switch first {
                case 1, 7: .home
                case 4, 8: .end
                case 3: .delete
                case 5: .pageUp
                case 6: .pageDown
                case 11 ... 15: .function(first - 10)
                case 17 ... 21: .function(first - 11)
                case 23, 24: .function(first - 12)
                default: .unknown
                }
            default: .unknown
            }
        return (key, j - i + 1)
    }
}
