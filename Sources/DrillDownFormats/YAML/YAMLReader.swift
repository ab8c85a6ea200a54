import DrillDownCore

/// Reads YAML 1.2 into a ``TreeStore``: block-style documents of plain and quoted one-line scalars
/// (what ``YAMLWriter`` and most hand-written files use) straight from their bytes
/// (``YAMLBlockReader``); anything else with DrillDown's own YAML 1.2 event parser
/// (``YAMLParser``, which passes every case of yaml/yaml-test-suite), straight from the events
/// into the store (``YAMLStreamReader``) when the document has no aliases or merge keys and is
/// valid, else composed by ``YAMLComposer``, which expands them and reports errors with their
/// line and column. All three give the same tree. Plain scalars are typed by ``YAMLPlainScalar``
/// (the same rules as Yams' default resolver, without a regular expression per scalar).
///
/// Scalars take the kind of their resolved YAML 1.1 tag: `int` (decimal, `0x`, `0o`, `0b`,
/// base 60, underscores — stored as exact decimal text at any size), `float` (`.inf`, `.nan`
/// stored as `inf`, `nan`), `bool` (`yes`/`on`/`true`… stored as `true`/`false`), `null`,
/// `timestamp` (a `.date` when it is a full ISO 8601 date-time, else a string), `!!binary`
/// (`.data`); everything else is a string. Merge keys (`<<: *base`) are applied. Aliases are
/// expanded, up to the ``ExpansionLimit`` that stops "billion laughs" documents; nesting,
/// aliases included, stops at ``maxDepth`` levels like the other readers.
///
/// A stream must hold exactly one document: a second `---` document is an error (silently
/// dropping it would be a partial load), and so is an empty stream.
///
/// - Complexity: O(n) in the input size plus the size of the tree (aliases expanded).
enum YAMLReader {
    /// The deepest nesting accepted, aliases expanded.
    static let maxDepth = 10_000

    static func read(_ input: UnsafeBufferPointer<UInt8>, limit: ExpansionLimit = .default) throws(ParseFailure) -> TreeStore {
        try UTF16Transcoding.withUTF8(input) { (buffer) throws(ParseFailure) -> TreeStore in
            if let bad = UTF8Validation.firstInvalidOffset(in: buffer) {
                throw ParseFailure(offset: bad, "invalid UTF-8 byte 0x\(String(buffer[bad], radix: 16, uppercase: true)); YAML documents must be UTF-8")
            }
            do throws(ReservationFailure) {
                if let tree = try YAMLBlockReader.read(buffer, limit: limit) { return tree }
                if let tree = try YAMLStreamReader.read(buffer, limit: limit) { return tree }
            } catch {
                throw ParseFailure(error)
            }
            var composer = YAMLComposer(inputBytes: buffer.count, limit: limit)
            let root = try composer.compose(buffer)
            return composer.build(root)
        }
    }
}
