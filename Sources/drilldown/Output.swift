import ArgumentParser
import DrillDown
import Foundation

/// `--json` for commands that print data.
struct OutputOptions: ParsableArguments {
    @Flag(name: .long, help: "Print JSON instead of text, for scripts.")
    var json = false
}

/// Buffered standard output: large trees print without a write per line.
///
/// When standard output is a terminal, text lines show control characters from the data as
/// visible stand-ins (``VisibleText``), so a title cannot move the cursor, clear the screen or
/// write to the clipboard; into a pipe or file the text stays exact, and JSON is always exact.
struct Out {
    private var buffer: [UInt8] = []
    private let escaping: Bool

    /// Whether standard output is a terminal.
    static let isTerminal = isatty(1) != 0

    init(escapingControls: Bool = Out.isTerminal) {
        escaping = escapingControls
        buffer.reserveCapacity(1 << 16)
    }

    mutating func line(_ s: String = "") {
        buffer.append(contentsOf: (escaping ? VisibleText.escaping(s) : s).utf8)
        buffer.append(10)
        if buffer.count >= 1 << 16 { flush() }
    }

    mutating func flush() {
        guard !buffer.isEmpty else { return }
        buffer.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = Foundation.write(1, raw.baseAddress! + offset, raw.count - offset)
                if n <= 0 { break }
                offset += n
            }
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Prints an encodable value as pretty JSON with sorted keys.
    static func json(_ value: some Encodable) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var out = Out(escapingControls: false)
        out.line(String(decoding: try encoder.encode(value), as: UTF8.self))
        out.flush()
    }
}

/// A row as the CLI's JSON shows it.
struct RowJSON: Encodable {
    var path: String
    var title: String
    var subtitle: String?
    var image: String?
    var kind: String?
    var drills: Bool
    var children: Int
    var select: String

    init(_ row: Row) {
        path = row.path.description
        title = row.title
        subtitle = row.subtitle.isEmpty ? nil : row.subtitle
        image = row.image
        kind = row.kind
        drills = row.drills
        children = row.childCount
        select = row.select.description
    }
}

/// Pads `text` with spaces to `width` terminal columns (ASCII-width approximation for CLI tables).
func padded(_ text: String, _ width: Int) -> String {
    let n = text.count
    return n >= width ? text : text + String(repeating: " ", count: width - n)
}
