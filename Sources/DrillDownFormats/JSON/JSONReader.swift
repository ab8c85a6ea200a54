import DrillDownCore

/// Reads JSON (RFC 8259, strict) into a ``TreeStore``.
///
/// Valid input takes the fast path: a SIMD structural scan (``JSONStructuralScanner``) feeding a
/// stage that writes the store's arrays directly (``JSONIndexedParser``), sized by a first count.
/// Input that path does not accept is read again by ``JSONParser``, which reports the error with
/// what was expected, so messages and positions are those of the one-pass parser.
///
/// No trailing commas, comments, `NaN` or single quotes; strings are validated as UTF-8 and their
/// escapes (including `\uD83D\uDE00` surrogate pairs) decoded; numbers are kept as written, as
/// `.integer` or `.real`. Nesting is limited to ``maxDepth`` levels and is tracked on the heap,
/// so no input can overflow the stack.
///
/// - Complexity: O(n) in the input size; the line and column of an error are computed only when
///   an error is reported.
enum JSONReader {
    /// The deepest nesting accepted.
    static let maxDepth = 10_000

    /// Parses `input` into a tree; with `loan`, one whose text is the input itself where it can be
    /// (see ``InputLoan``).
    static func read(_ input: UnsafeBufferPointer<UInt8>, lending loan: InputLoan? = nil) throws(ParseFailure) -> TreeStore {
        guard let base = input.baseAddress, !input.isEmpty else {
            throw ParseFailure(offset: 0, "empty document; expected a JSON value")
        }
        do throws(ReservationFailure) {
            if let tree = try JSONIndexedParser.read(input, lending: loan) { return tree }
        } catch {
            throw ParseFailure(error)
        }
        var parser = JSONParser(base: base, count: input.count)
        return try parser.parse()
    }
}
