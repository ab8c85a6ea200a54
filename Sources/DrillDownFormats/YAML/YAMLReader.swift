import DrillDownCore
import Yams

/// Reads YAML into a ``TreeStore`` through Yams (libyaml): the composed node graph is turned into
/// builder events. Plain scalars are typed by ``YAMLPlainScalar`` (the same rules as Yams' default
/// resolver, without a regular expression per scalar).
///
/// Scalars take the kind of their resolved YAML 1.1 tag: `int` (decimal, `0x`, `0o`, `0b`,
/// underscores — stored as decimal text), `float` (`.inf`, `.nan` stored as `inf`, `nan`),
/// `bool` (`yes`/`on`/`true`… stored as `true`/`false`), `null`, `timestamp` (a `.date` when it
/// is a full ISO 8601 date-time, else a string), `!!binary` (`.data`); everything else is a
/// string. Merge keys (`<<: *base`) are applied. Aliases are expanded, up to a node budget that
/// stops "billion laughs" documents.
///
/// A stream must hold exactly one document: a second `---` document is an error (silently
/// dropping it would be a partial load), and so is an empty stream.
///
/// - Complexity: O(n) in the input size plus the size of expanded aliases.
enum YAMLReader {
    static func read(_ input: UnsafeBufferPointer<UInt8>) throws(ParseFailure) -> TreeStore {
        try UTF16Transcoding.withUTF8(input) { (buffer) throws(ParseFailure) -> TreeStore in
            if let bad = UTF8Validation.firstInvalidOffset(in: buffer) {
                throw ParseFailure(offset: bad, "invalid UTF-8 byte 0x\(String(buffer[bad], radix: 16, uppercase: true)); YAML documents must be UTF-8")
            }
            let text = String(decoding: buffer, as: UTF8.self)
            let root: Node?
            do {
                root = try Yams.compose(yaml: text, .basic)
            } catch let error as YamlError {
                throw failure(error, text: text, buffer: buffer)
            } catch {
                throw ParseFailure(offset: 0, "\(error)")
            }
            guard let root else { throw ParseFailure(offset: buffer.count, "empty document; expected a YAML value") }
            var converter = YAMLConverter(budget: max(200_000, buffer.count * 8), bytes: buffer.count)
            try converter.value(root)
            guard converter.builder.text.count < Int(UInt32.max) else {
                throw ParseFailure(offset: 0, "document too large: more than 4 GiB of text")
            }
            return converter.builder.build()
        }
    }

    /// A ``ParseFailure`` at the position libyaml reported, with its problem and context.
    static func failure(_ error: YamlError, text: String, buffer: UnsafeBufferPointer<UInt8>) -> ParseFailure {
        func located(_ mark: Mark, _ message: String) -> ParseFailure {
            var failure = ParseFailure(offset: 0, message)
            failure.knownLocation = (mark.line, mark.column)
            return failure
        }
        func describe(_ context: YamlError.Context?, _ problem: String) -> String {
            guard let context else { return problem }
            return "\(problem) (\(context.text) at \(context.mark.line):\(context.mark.column))"
        }
        switch error {
        case let .scanner(context, problem, mark, _), let .parser(context, problem, mark, _):
            return located(mark, describe(context, problem))
        case let .composer(context, problem, mark, _):
            if problem == "but found another document" {
                return located(mark, "a second YAML document starts here; expected a single document")
            }
            return located(mark, describe(context, problem))
        case let .reader(problem, offset, _, _):
            let characters = offset ?? 0
            let utf8Offset = text.utf8.distance(
                from: text.startIndex, to: text.index(text.startIndex, offsetBy: characters, limitedBy: text.endIndex) ?? text.endIndex)
            return ParseFailure(offset: utf8Offset, problem)
        case let .duplicatedKeysInMapping(duplicates, context):
            let keys = duplicates.map { "'\($0)'" }.joined(separator: ", ")
            return located(context.mark, "duplicate key \(keys) in mapping")
        default:
            return ParseFailure(offset: 0, "\(error)")
        }
    }
}
