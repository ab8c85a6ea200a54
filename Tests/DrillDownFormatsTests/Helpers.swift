import DrillDownCore
@testable import DrillDownFormats
import Foundation
import Testing

/// Reads `text` as a document named `file`.
func read(_ text: String, as format: DocumentFormat? = nil, file: String = "test") throws(FormatError) -> TreeValue {
    TreeValue(try DocumentReader.read(bytes: Array(text.utf8), file: file, format: format).tree)
}

/// Reads `bytes` as a document named `file`.
func read(bytes: [UInt8], as format: DocumentFormat? = nil, file: String = "test") throws(FormatError) -> TreeValue {
    TreeValue(try DocumentReader.read(bytes: bytes, file: file, format: format).tree)
}

/// The error reading `bytes` gives, or `nil` when it reads.
func readError(bytes: [UInt8], as format: DocumentFormat? = nil, file: String = "test") -> FormatError? {
    do {
        _ = try DocumentReader.read(bytes: bytes, file: file, format: format)
        return nil
    } catch {
        return error
    }
}

/// The error reading `text` gives, or `nil` when it reads.
func readError(_ text: String, as format: DocumentFormat? = nil, file: String = "test") -> FormatError? {
    readError(bytes: Array(text.utf8), as: format, file: file)
}

/// Writes `value` in `format` and reads it back.
func roundTrip(_ value: TreeValue, _ format: DocumentFormat) throws(FormatError) -> TreeValue {
    let bytes = try DocumentWriter.data(value.store, format: format)
    return try read(bytes: bytes, as: format)
}

/// How a format keeps a value's kinds: JSON turns dates and data into strings; OpenStep keeps
/// only strings and data (other scalars keep their text).
func expected(_ value: TreeValue, in format: DocumentFormat) -> TreeValue {
    switch format {
    case .json:
        value.mapScalars { kind, text in kind == .date || kind == .data ? (.string, text) : (kind, text) }
    case .plistOpenStep:
        value.mapScalars { kind, text in kind == .data ? (.data, text) : (.string, text) }
    case .plistXML, .plistBinary, .yaml, .csv, .opml:
        value
    }
}

/// The only two acceptable outcomes of reading damaged input, within a second: a tree that the
/// same format writes and reads back equal (what is read can be saved), or a ``FormatError``
/// with its location (line and column for text, a byte offset for binary property lists).
func expectTreeOrLocatedError(_ bytes: [UInt8], as format: DocumentFormat, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
    let clock = ContinuousClock()
    let start = clock.now
    do {
        let tree = try DocumentReader.read(bytes: bytes, file: "f", format: format).tree
        do {
            let again = try read(bytes: try DocumentWriter.data(tree, format: format), as: format)
            #expect(again == TreeValue(tree), "\(format) input \(bytes) reads back differently", sourceLocation: sourceLocation)
        } catch {
            // The only refusals allowed are of values the format cannot hold and its readers accept
            // from other writers: a binary null, and characters XML 1.0 cannot hold.
            let holdable = error.message.hasPrefix("property lists have no null") || error.message.hasPrefix("XML property lists cannot hold U+")
            #expect(holdable, "\(format) input \(bytes) reads but cannot be written back: \(error)", sourceLocation: sourceLocation)
        }
    } catch {
        if format == .plistBinary {
            #expect(error.line == nil && (error.message.contains("offset") || error.message.contains("byte")), "\(error)", sourceLocation: sourceLocation)
        } else {
            #expect((error.line ?? 0) >= 1 && (error.column ?? 0) >= 1, "\(error)", sourceLocation: sourceLocation)
        }
        #expect(!error.message.isEmpty, sourceLocation: sourceLocation)
    }
    #expect(clock.now - start < .seconds(10), "\(format) input \(bytes) took \(clock.now - start)", sourceLocation: sourceLocation)
}
