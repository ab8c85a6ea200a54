import DrillDownCore
import Foundation
import Hummingbird

/// The Move… destination picker's pages (see ``MovePickerPage``): `GET /move/PATH` and
/// `GET /move?paths=0.1,2.4`, with `at=` the level to show (a TreePath, or a typed TreePath or
/// title path; `from=` is where to stay when it names nothing), `q=` to search for a
/// destination by title and `offset=` to page through a long level. A move posted from the
/// picker (its `picker=1` field) that is refused comes back to the picker, at the same place,
/// with the message (400), never to an error page.
extension Site {
    /// The picker for the rows at `moving`, at the request's `at=` (their parent by default).
    func movePicker(_ moving: [TreePath], _ request: Request) async throws -> Response {
        let query = Query(request.uri.query)
        var page = MovePickerPage(site: self, moving: moving, at: moving[0].parent)
        page.back = query["back"]
        if let from = query["from"].flatMap(TreePath.init), source.node(at: from) != nil { page.at = from }
        if let at = query["at"] {
            do throws(WebError) {
                page.at = source.path(of: try NodeLookup.node(decoded: at, in: source).id)
            } catch {
                page.error = "No row at “\(at)”: \(error.message)"
                page.typed = at
            }
        }
        page.offset = max(0, Int(query["offset"] ?? "") ?? 0)
        if let text = query["q"]?.trimmingCharacters(in: .whitespaces), !text.isEmpty {
            page.query = text
            page.results = try await search(SearchQuery(String(text.prefix(200)), limit: 50), request: request)
        }
        return Responses.html(page.render(), status: page.error == nil ? .ok : .badRequest)
    }

    /// The picker again after the move it posted was refused: at the destination it named when
    /// that exists (else where the rows are), with the message, the position and what was typed.
    func refusedMove(_ op: Substring, at path: TreePath, _ form: EditRequest, message: String, in source: any Source) throws -> Response {
        let moving = op == "move" ? [path] : try MovePickerPage.paths(form.formPaths[...], in: source)
        var page = MovePickerPage(site: self, moving: moving, at: moving[0].parent)
        page.back = form["back"]
        page.error = message
        page.index = form["index"]
        if let to = form["to"] {
            if let id = try? NodeLookup.node(decoded: to, in: source).id {
                page.at = source.path(of: id)
            } else {
                page.typed = to
            }
        }
        return Responses.html(page.render(), status: .badRequest)
    }
}

extension MovePickerPage {
    /// The rows to move, parsed from TreePaths (`0.1`, `2.4`), in tree order without repeats;
    /// a row inside another one moves with it, so only the outer one is kept.
    static func paths<S: Sequence>(_ texts: S, in source: any Source) throws(WebError) -> [TreePath] where S.Element: StringProtocol {
        var paths: [TreePath] = []
        for text in texts {
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            guard let path = TreePath(trimmed) else { throw .badRequest("'\(trimmed)' is not a TreePath such as 0.1.") }
            guard !path.isRoot else { throw .badRequest("The root cannot be moved.") }
            guard source.node(at: path) != nil else { throw .notFound("No row at TreePath \(path).") }
            paths.append(path)
        }
        guard !paths.isEmpty else { throw .badRequest("Give the rows to move as paths=0.1,2.4.") }
        paths = Array(Set(paths)).sorted()
        return paths.filter { path in !paths.contains { $0 != path && path.hasPrefix($0) } }
    }
}

extension EditRequest {
    /// Whether the form was posted by the Move… picker, which shows a refusal itself.
    var fromPicker: Bool { !wantsJSON && self["picker"] != nil }
}
