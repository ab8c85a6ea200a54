import Foundation
import DrillDownCore

/// The URLs of the app's screens, built from TreePaths: one path, everywhere.
enum Links {
    /// The level screen of the node at `path` (`/` for the root).
    static func level(_ path: TreePath) -> String { path.isRoot ? "/" : "/l/\(path)" }
    /// The detail screen of the node at `path`.
    static func detail(_ path: TreePath) -> String { "/d/\(path)" }
    /// A download of the level (`csv`) or subtree (`opml`) at `path`.
    static func export(_ format: String, _ path: TreePath) -> String { path.isRoot ? "/export/\(format)" : "/export/\(format)/\(path)" }
    /// The columns screen showing `path`.
    static func columns(_ path: TreePath) -> String { path.isRoot ? "/columns" : "/columns/\(path)" }
    /// The outline screen with `path` revealed and focused.
    static func outline(revealing path: TreePath) -> String {
        guard !path.isRoot else { return "/outline" }
        let ancestors = (1 ..< path.depth + 1).map { TreePath(Array(path.indices.prefix($0))) }
        return "/outline?open=\(ancestors.map(\.description).joined(separator: ","))&focus=\(path)#n-\(path)"
    }
    /// Where selecting `row` leads, following its template; `nil` when selecting does nothing here
    /// (an action, which only an editable server runs, or `none`).
    static func destination(of row: Row) -> String? {
        destination(of: row, path: row.path.description)
    }

    /// ``destination(of:)`` from the row's TreePath already written out (`path`, empty for the root).
    static func destination(of row: Row, path: String) -> String? {
        switch row.select {
        case .drill: row.drills ? (path.isEmpty ? "/" : "/l/" + path) : "/d/" + path
        case .detail: "/d/" + path
        case .action, .none: nil
        }
    }

    /// Whether ``destination(of:path:)`` is a link (not `nil`) for `row`.
    static func leadsSomewhere(_ row: Row) -> Bool {
        switch row.select {
        case .drill, .detail: true
        case .action, .none: false
        }
    }

    /// A relative image path as a `/files/` URL, or `nil` when it points outside the data folder.
    ///
    /// Each segment is percent-encoded as `addingPercentEncoding(withAllowedCharacters:
    /// .urlPathAllowed minus "/?#;")` does, byte by byte (this runs for every row with an image).
    static func image(_ relative: String?) -> String? {
        guard let relative, !relative.isEmpty else { return nil }
        let bytes = relative.utf8
        guard bytes.first != UInt8(ascii: "/"), !bytes.contains(UInt8(ascii: "\\")) else { return nil }
        var out = "/files/"
        var segment: [UInt8] = []
        var previous: (UInt8, UInt8) = (0, 0)
        func flush() -> Bool {
            if segment == [46, 46] { return false }  // ".."
            for b in segment {
                if allowedInSegment(b) {
                    out.unicodeScalars.append(Unicode.Scalar(b))
                } else {
                    out += "%"
                    out.unicodeScalars.append(Unicode.Scalar(hexDigits[Int(b >> 4)]))
                    out.unicodeScalars.append(Unicode.Scalar(hexDigits[Int(b & 15)]))
                }
            }
            segment.removeAll(keepingCapacity: true)
            return true
        }
        for b in bytes {
            // "://" anywhere: a URL, not a path.
            if b == UInt8(ascii: "/"), previous == (UInt8(ascii: ":"), UInt8(ascii: "/")) { return nil }
            if b == UInt8(ascii: "/") {
                guard flush() else { return nil }
                out += "/"
            } else {
                segment.append(b)
            }
            previous = (previous.1, b)
        }
        return flush() ? out : nil
    }

    static let hexDigits = Array("0123456789ABCDEF".utf8)

    /// Whether byte `b` stays as it is in a percent-encoded path segment (`.urlPathAllowed` without `/?#;`).
    static func allowedInSegment(_ b: UInt8) -> Bool {
        switch b {
        case 48...57, 65...90, 97...122: true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "!"), UInt8(ascii: "$"),
            UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"),
            UInt8(ascii: ","), UInt8(ascii: "="), UInt8(ascii: ":"), UInt8(ascii: "@"): true
        default: false
        }
    }
}
