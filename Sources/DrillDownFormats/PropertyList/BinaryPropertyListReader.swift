import DrillDownCore

/// Reads binary property lists (`bplist00`) into a ``TreeStore``: ``BinaryPropertyListFastParser``
/// writes the nodes straight to their ids in the store's columns, and any input it declines (an
/// error, a 128-bit integer out of range, …) is read again by ``BinaryPropertyListParser``,
/// whose errors name the byte offset.
///
/// Supports the trailer, offset table and object references of any width; integers (1–16
/// bytes), reals (4 and 8 bytes), dates (to ISO 8601 text), data (to base64 text), ASCII,
/// UTF-16 and UTF-8 strings, arrays, sets (read as arrays), dictionaries, booleans, null and UIDs
/// (read as integers). Every offset, length and reference is checked before it is used;
/// reference cycles, nesting beyond ``maxDepth``, shared references that would expand past the
/// ``ExpansionLimit`` and dates outside the years 0001-9999 are errors naming the byte offset — corrupt input never crashes the reader.
///
/// - Complexity: O(n) in the number of nodes produced; no recursion.
enum BinaryPropertyListReader {
    /// The deepest nesting accepted.
    static let maxDepth = 10_000

    /// Reads `input`; shared references are copied per use, up to `limit`.
    static func read(_ input: UnsafeBufferPointer<UInt8>, limit: ExpansionLimit = .default) throws(ParseFailure) -> TreeStore {
        do throws(ReservationFailure) {
            if let tree = try BinaryPropertyListFastParser.read(input, limit: limit) { return tree }
        } catch {
            throw ParseFailure(error)
        }
        var parser = try BinaryPropertyListParser(input, limit: limit)
        return try parser.parse()
    }
}
