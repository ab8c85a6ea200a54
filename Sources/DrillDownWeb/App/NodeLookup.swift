import Foundation
import DrillDownCore

/// Turns the path part of a URL into a node: a TreePath (`3.0.0`) or a title path (`Item 4/Screen G`).
enum NodeLookup {
    /// The longest path accepted, in bytes.
    static let maxLength = 4096

    /// The node named by `raw` (percent-encoded, as it appears in the URL).
    ///
    /// - Throws: ``WebError`` 400 for a malformed path (bad escapes, control characters, a
    ///   dotted path that is not a TreePath such as `3..0`, a title path that matches several
    ///   siblings), 404 when no node has that path.
    /// - Complexity: O(depth) for TreePaths, O(depth × width) for title paths.
    static func node(_ raw: Substring, in source: any Source) throws(WebError) -> (id: NodeID, isCanonical: Bool) {
        let found = try lookUp(raw, in: source)
        try reachable(found.id, String(raw), in: source)
        return found
    }

    /// Throws 404, as for a path that names nothing, when the request's user may not reach `id`
    /// (on a server with accounts; see ``AccessView/mayReach(_:)``).
    static func reachable(_ id: NodeID, _ text: String, in source: any Source) throws(WebError) {
        guard let access = RequestState.current?.access, access.hidesRows, !access.mayReach(source.path(of: id)) else { return }
        throw .notFound("No node at '\(text.removingPercentEncoding ?? text)'.")
    }

    private static func lookUp(_ raw: Substring, in source: any Source) throws(WebError) -> (id: NodeID, isCanonical: Bool) {
        guard raw.utf8.count <= maxLength else { throw .badRequest("The path is longer than \(maxLength) bytes.") }
        // The common case, a plain TreePath such as 3.0.1, without Foundation's decoding; anything
        // else (and any TreePath that names no node) takes the path below and its messages.
        if !raw.isEmpty, raw.utf8.allSatisfy({ ($0 >= 48 && $0 <= 57) || $0 == UInt8(ascii: ".") }),
            let path = TreePath(String(raw)), let id = source.node(at: path)
        {
            return (id, true)
        }
        guard let text = String(raw).removingPercentEncoding else {
            throw .badRequest("The path '\(raw)' has an invalid %-escape.")
        }
        return try lookUp(decoded: text, in: source)
    }

    /// The node named by an already decoded path.
    static func node(decoded text: String, in source: any Source) throws(WebError) -> (id: NodeID, isCanonical: Bool) {
        let found = try lookUp(decoded: text, in: source)
        try reachable(found.id, text, in: source)
        return found
    }

    private static func lookUp(decoded text: String, in source: any Source) throws(WebError) -> (id: NodeID, isCanonical: Bool) {
        guard !text.unicodeScalars.contains(where: { $0.value < 32 || $0.value == 127 }) else {
            throw .badRequest("The path contains control characters.")
        }
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty || trimmed == "/" { return (source.root, trimmed.isEmpty) }
        let looksNumeric = trimmed.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || $0 == UInt8(ascii: ".") }
        if looksNumeric {
            guard let path = TreePath(trimmed) else {
                throw .badRequest("'\(trimmed)' is not a TreePath: use dot-separated row numbers such as 3.0.0.")
            }
            guard let id = source.node(at: path) else {
                do throws(PathError) { _ = try source.resolve(trimmed) } catch { throw .notFound(error.message) }
                throw .notFound("No node at TreePath \(path).")
            }
            return (id, trimmed == text)
        }
        do throws(PathError) {
            return (try source.resolve(trimmed), false)
        } catch {
            // A title path that names several siblings is the request's fault, not a missing node.
            throw error.candidates.isEmpty ? .notFound(error.message) : .badRequest(error.message)
        }
    }
}
