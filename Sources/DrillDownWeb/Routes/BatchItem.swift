import DrillDownCore
import Foundation

/// One change of a batch (`POST /api/edit/batch`), as a client sends it:
/// `{"op": "move", "paths": ["0.1", "2.4"], "to": "1", "index": 0}`.
///
/// - `add`: `path` (the parent), `title`, optional `index`
/// - `rename`: `path`, `title`
/// - `delete`: `path` or `paths`
/// - `move`: `path` or `paths`, `to` (the new parent, `""` for the root), optional `index` among its
///   children counted after the moved nodes left; or `direction` `up` / `down` among their siblings
/// - `indent`, `outdent`: `path` or `paths` (see ``SelectionEdit``)
///
/// Paths are TreePaths of the data as that change sees it (after the batch's earlier changes);
/// the nodes of one change's `paths` are all named in that same data.
struct BatchItem: Equatable, CustomStringConvertible {
    var op: String
    var paths: [TreePath]
    var to: TreePath?
    var index: Int?
    var title: String?
    var direction: String?

    static let ops: Set<String> = ["add", "rename", "delete", "move", "indent", "outdent"]

    /// Reads item `k` of a JSON body's `changes`.
    init(json: Any, at k: Int) throws(WebError) {
        guard let object = json as? [String: Any] else { throw .badRequest("changes[\(k)] must be an object such as {\"op\": \"delete\", \"path\": \"0.1\"}.") }
        func text(_ key: String) throws(WebError) -> String? {
            guard let value = object[key] else { return nil }
            guard let string = value as? String else { throw .badRequest("changes[\(k)].\(key) must be a string.") }
            return string
        }
        var paths: [String] = []
        if let one = try text("path") { paths.append(one) }
        if let many = object["paths"] {
            guard let list = many as? [String] else { throw .badRequest("changes[\(k)].paths must be a list of TreePaths such as [\"0.1\", \"2\"].") }
            paths += list
        }
        var index: Int?
        if let value = object["index"], !(value is NSNull) {
            guard let number = value as? NSNumber, let n = Int(exactly: number.doubleValue) else {
                throw .badRequest("changes[\(k)].index must be a whole number (0 = first).")
            }
            index = n
        }
        try self.init(op: try text("op") ?? "", paths: paths, to: try text("to"), index: index, title: try text("title"), direction: try text("direction"), at: "changes[\(k)]")
    }

    /// Reads the one change of a form (`op=delete&paths=0.1&paths=2`). The form's `op=add-below`
    /// adds a row titled `title` just after the one ticked row (what Enter does in the outline).
    init(form: [String: String], paths: [String], op: String) throws(WebError) {
        var index: Int?
        if let text = form["index"]?.trimmingCharacters(in: .whitespaces), !text.isEmpty {
            guard let n = Int(text) else { throw .badRequest("index must be a row number (0 = first), not '\(text)'.") }
            index = n
        }
        var paths = paths + (form["path"].map { [$0] } ?? [])
        var op = op
        if op == "add-below" {
            guard paths.count == 1, let row = TreePath(paths[0]), let last = row.indices.last else {
                throw .badRequest("Tick the one row the new row goes below.")
            }
            (op, paths, index) = ("add", [row.parent.description], last + 1)
        }
        try self.init(op: op, paths: paths, to: form["to"], index: index, title: form["title"], direction: form["direction"], at: "the form")
    }

    private init(op: String, paths: [String], to: String?, index: Int?, title: String?, direction: String?, at place: String) throws(WebError) {
        guard Self.ops.contains(op) else {
            throw .badRequest("\(place): op must be one of \(Self.ops.sorted().joined(separator: ", ")), not '\(op)'.")
        }
        self.op = op
        self.paths = try paths.map { (text: String) throws(WebError) -> TreePath in
            guard let path = TreePath(text.trimmingCharacters(in: .whitespaces)) else { throw .badRequest("\(place): '\(text)' is not a TreePath such as 0.1.") }
            return path
        }
        guard !self.paths.isEmpty else { throw .badRequest("\(place): give the node's TreePath as path (or several as paths).") }
        if let to, direction != "up", direction != "down" {
            guard let path = TreePath(to.trimmingCharacters(in: .whitespaces)) else { throw .badRequest("\(place): to must be a TreePath such as 1.2 (empty for the top level), not '\(to)'.") }
            self.to = path
        }
        if let index, index < 0 { throw .badRequest("\(place): index must be 0 or more, not \(index).") }
        self.index = index
        self.title = title?.trimmingCharacters(in: .whitespacesAndNewlines)
        self.direction = direction
        switch op {
        case "add", "rename":
            guard self.paths.count == 1 else { throw .badRequest("\(place): \(op) takes one path.") }
            guard let t = self.title, !t.isEmpty else { throw .badRequest("\(place): \(op) needs a title.") }
        case "move":
            if self.to == nil, direction != "up", direction != "down" {
                throw .badRequest("\(place): move needs to (the new parent's TreePath) or direction=up or down.")
            }
        default: break
        }
    }

    /// The core changes this item makes, in the order they apply.
    func changes() throws(EditError) -> [Change] {
        switch op {
        case "add": return [.insert(NewNode(title: title ?? ""), parent: paths[0], index: index)]
        case "rename": return [.updateTitle(paths[0], title: title ?? "")]
        case "delete": return try SelectionEdit.delete(paths).changes()
        case "indent": return try SelectionEdit.indent(paths).changes()
        case "outdent": return try SelectionEdit.outdent(paths).changes()
        default:
            if let to { return try SelectionEdit.move(paths, parent: to, index: index).changes() }
            // Up or down among their siblings: the rows keep together, one place further.
            let parent = paths[0].parent
            guard paths.allSatisfy({ $0.parent == parent && !$0.isRoot }) else {
                throw EditError("moving up or down takes rows of one level", at: paths[0])
            }
            let first = paths.map { $0.indices.last! }.min()!
            if direction == "up" {
                guard first > 0 else { throw EditError("the first row of its level cannot move up", at: paths[0]) }
                return try SelectionEdit.move(paths, parent: parent, index: first - 1).changes()
            }
            return try SelectionEdit.move(paths, parent: parent, index: first + 1).changes()
        }
    }

    var description: String {
        ([op, paths.map(\.description).joined(separator: ","), to.map { "to=\($0)" }, index.map { "index=\($0)" }, title.map { "title=\($0)" }, direction]
            .compactMap { $0 }).joined(separator: " ")
    }
}
