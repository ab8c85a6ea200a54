/// How a text value that holds a JSON object or array is read as a subtree and written back.
///
/// The core knows no format: the library (`DrillDown.open`) injects the JSON reader and a compact
/// writer of DrillDownFormats. A ``DocumentSource`` given one presents such text values as nodes
/// with children (see ``EmbeddedJSONSource``); an ``EditableDocument`` turns a change inside one
/// into a new text for the value.
///
/// ```swift
/// let source = DocumentSource(tree: tree, embeddedJSON: EmbeddedJSON(read: parse, write: compact))
/// ```
public struct EmbeddedJSON: Sendable {
    /// Parses a value's text; `nil` when it is not JSON (or exceeds the reader's limits).
    public var read: @Sendable ([UInt8]) -> TreeStore?
    /// Serialises an edited tree compactly, keys in their order; `nil` when it cannot be written as JSON.
    public var write: @Sendable (TreeStore) -> String?
    /// Text longer than this (in bytes) stays text: a budget on what one value may cost.
    public var maxBytes: Int

    /// Creates a hook from a reader and a writer; `maxBytes` bounds what one value may cost.
    public init(
        maxBytes: Int = 16 << 20, read: @escaping @Sendable ([UInt8]) -> TreeStore?, write: @escaping @Sendable (TreeStore) -> String?
    ) {
        self.read = read
        self.write = write
        self.maxBytes = maxBytes
    }

    /// Whether `bytes` may hold a JSON object or array: after optional whitespace it opens with
    /// `{` or `[` and ends with the matching bracket. O(leading and trailing whitespace): a plain
    /// string costs two byte tests, however long.
    public func mayHold(_ bytes: TextBytes) -> Bool {
        guard bytes.count >= 2, bytes.count <= maxBytes else { return false }
        return bytes.withUnsafeBufferPointer { b in
            var lo = 0, hi = b.count - 1
            while lo < hi, Self.isSpace(b[lo]) { lo += 1 }
            while hi > lo, Self.isSpace(b[hi]) { hi -= 1 }
            return (b[lo] == 0x7B && b[hi] == 0x7D) || (b[lo] == 0x5B && b[hi] == 0x5D)
        }
    }

    static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 }
}
