import DrillDownCore
import Foundation
import HTTPTypes
import Hummingbird

/// The writes of an editable server, each one a call into the core's ``DocumentModel``. Every
/// route takes a form post (answered with a redirect back, so pages work without JavaScript) or
/// JSON (under `/api/edit/`, or with `Accept: application/json`), and needs the session's CSRF
/// token (the `csrf` field or the `X-CSRF-Token` header).
///
/// - `POST /edit/add/PATH` `title=` and the new row's fields (see ``addNode(at:_:in:model:key:)``):
///   appends a child (an empty form adds nothing)
/// - `POST /edit/update/PATH` the node's fields: a scalar leaf's value or a row's title and
///   attributes, every changed one in one step (see ``updateFields(at:_:in:model:key:)``)
/// - `POST /edit/rename/PATH` `title=`
/// - `POST /edit/delete/PATH` (the no-JS page `GET /delete/PATH` asks first)
/// - `POST /edit/move/PATH` `direction=up|down` or `index=N` (among its siblings), or `to=PARENT`
///   (a TreePath or title path; empty for the root) with an optional `index=N` to move it under
///   another node (the destination picker is `GET /move/PATH`, see ``MovePickerPage``)
/// - `POST /edit/set/PATH` `control=INDEX|TARGET` and `toggle=1`, `value=V` or `step=±N`
/// - `POST /edit/run/PATH` `action=NAME` (a button's action)
/// - `POST /edit/batch`: several changes as one undoable step (see ``BatchItem``): JSON
///   `{"changes": [{"op": "delete", "paths": ["0.1", "2.4"]}, …]}`, or one change from a form
///   (`op=`, `paths=` repeated, `to=`, `index=`, `title=`); the answer's `paths` are where each
///   change's node is after the whole step
/// - `POST /edit/undo`, `POST /edit/redo`
///
/// The JSON answer is `{"revision": N, "changed": true, "paths": ["0.1"], "history": {"canUndo": true,
/// "canRedo": false, "undo": "Rename of Ringtone to Chime"}}` (what Undo and Redo can do now; see
/// ``HistoryState``); an undo or redo adds `"step"`: what it did and where (``StepNotice``), which a
/// form posted without script gets on the next page instead. A refused field value
/// is 400 `{"error": "…", "field": "length"}`, and a form posted without script gets its page
/// again with the message next to the field (400).
///
/// An `Idempotency-Key` header (at most 200 bytes; app.js sends one per user action) makes a write
/// safe to retry: the same key again returns the first outcome (with `Idempotency-Replayed: true`)
/// instead of applying it twice, on every instance of one PostgreSQL table; the key used for a
/// different request is 422. A write whose commit outcome is unknown (the database went away
/// during COMMIT) is 503 with `"outcome": "unknown"`: retry it with the same key to settle it.
extension Site {
    func addEditRoutes(to router: Router<SiteContext>) {
        router.post("/edit/**") { request, _ in try await edit(request, prefix: 6, api: false) }
        router.post("/api/edit/**") { request, _ in try await edit(request, prefix: 10, api: true) }
        router.get("/add") { request, _ in
            Responses.html(EditPage(site: self, id: source.root, mode: .add, back: Query(request.uri.query)["back"]).render())
        }
        router.get("/add/**") { request, _ in
            let (id, _) = try NodeLookup.node(request.uri.path.dropFirst(5), in: source)
            return Responses.html(EditPage(site: self, id: id, mode: .add, back: Query(request.uri.query)["back"]).render())
        }
        router.get("/rename/**") { request, _ in
            let (id, _) = try NodeLookup.node(request.uri.path.dropFirst(8), in: source)
            guard id != source.root else { throw WebError.badRequest("The root has no title to rename.") }
            return Responses.html(EditPage(site: self, id: id, mode: .rename, back: Query(request.uri.query)["back"]).render())
        }
        router.get("/move/**") { request, _ in
            let (id, _) = try NodeLookup.node(request.uri.path.dropFirst(6), in: source)
            guard id != source.root else { throw WebError.badRequest("The root cannot be moved.") }
            return try await movePicker([source.path(of: id)], request)
        }
        router.get("/move") { request, _ in
            let query = Query(request.uri.query)
            let paths = try MovePickerPage.paths(query.all("paths").flatMap { $0.split(separator: ",") }, in: source)
            return try await movePicker(paths, request)
        }
        router.get("/delete/**") { request, _ in
            let (id, _) = try NodeLookup.node(request.uri.path.dropFirst(8), in: source)
            guard id != source.root else { throw WebError.badRequest("The root cannot be deleted.") }
            return Responses.html(EditPage(site: self, id: id, mode: .delete, back: Query(request.uri.query)["back"]).render())
        }
    }

    /// One write: parses `/edit/OP/PATH`, applies it through the model, answers JSON or a redirect.
    func edit(_ request: Request, prefix: Int, api: Bool) async throws -> Response {
        guard let model else {
            throw WebError(status: .methodNotAllowed, message: "This server is read-only.", headers: [.allow: "GET, HEAD"])
        }
        let rest = request.uri.path.dropFirst(prefix)
        let op = rest.prefix { $0 != "/" }
        let rawPath = rest.dropFirst(op.count).drop { $0 == "/" }
        let form = try await EditRequest.read(request, api: api, maxBytes: options.maxBodyBytes, tokens: csrf)
        let source = self.source
        let path: TreePath
        if op == "undo" || op == "redo" || op == "batch" {
            path = .root
        } else {
            path = source.path(of: try NodeLookup.node(rawPath, in: source).id)
        }
        try authorize(op, at: path, form, in: source)
        var returnTo = Links.level(path.isRoot ? path : path.parent)
        let key = try Self.stepKey(request, op: op, path: path, form: form)
        var replayed = false
        let paths: [TreePath]
        var notice: StepNotice?
        do {
            if let key, let earlier = try model.outcome(of: key) {
                replayed = true
                paths = earlier.paths
            } else {
                paths = try await apply(op, at: path, form, in: source, model: model, key: key, notice: &notice)
                if let key { replayed = model.recorded(key)?.replayed ?? false }
            }
        } catch let error as EditError where error.reason == .invalid && form.fromPicker {
            return try refusedMove(op, at: path, form, message: error.message, in: source)
        } catch let error as WebError where form.fromPicker && (error.status == .badRequest || error.status == .notFound) {
            return try refusedMove(op, at: path, form, message: error.message, in: source)
        } catch let error as EditError {
            switch error.reason {
            case .invalid:
                if !form.wantsJSON, let page = refusedForm(op, at: path, form, error, in: source) { return page }
                throw WebError(status: .badRequest, message: error.message, field: error.field)
            case .conflict: throw WebError(status: .conflict, message: error.message)
            case .unavailable: throw WebError(status: .serviceUnavailable, message: error.message, headers: [.retryAfter: "1"])
            case .unknownOutcome:
                throw WebError(status: .serviceUnavailable, message: error.message, headers: [.retryAfter: "1"], outcome: "unknown")
            case .keyReused: throw WebError(status: .unprocessableContent, message: error.message)
            }
        }
        if op == "add" { returnTo = Links.level(path) }
        if op == "move", let moved = paths.first { returnTo = Links.level(moved.parent) }
        if form.wantsJSON {
            struct Result: Encodable { var revision: Int, changed: Bool, paths: [String], history: HistoryState, step: StepNotice? }
            var (_, revision, history) = model.versionedState
            if keepsHistory { history = await model.history(for: .current) }
            var response = try Responses.json(Result(
                revision: revision, changed: !paths.isEmpty, paths: paths.map(\.description), history: history, step: notice))
            if replayed { response.headers[.idempotencyReplayed] = "true" }
            return response
        }
        var back = form.back(or: returnTo)
        if op == "add", let added = paths.first { back = OutlineState.revealing(added, after: back) }
        var response = Response(status: .seeOther, headers: [.location: back])
        if let notice { response.headers.append(HTTPField(name: .setCookie, value: notice.cookie)) }
        return response
    }

    /// The step key of a write with an `Idempotency-Key` header: the key, and the request it
    /// stands for (operation, path and fields, but not the CSRF token, which differs per session).
    static func stepKey(_ request: Request, op: Substring, path: TreePath, form: EditRequest) throws -> StepKey? {
        guard let key = request.headers[.idempotencyKey] else { return nil }
        guard !key.isEmpty, key.utf8.count <= StepKey.maxLength, key.unicodeScalars.allSatisfy({ $0.value > 32 && $0.value < 127 }) else {
            throw WebError.badRequest("Idempotency-Key must be 1–\(StepKey.maxLength) visible ASCII characters.")
        }
        let fields = form.fields.filter { $0.key != "csrf" && $0.key != "back" }.sorted { $0.key < $1.key }
        let items = (form.items.map(\.description) + (form.formPaths.isEmpty ? [] : ["paths=" + form.formPaths.joined(separator: ",")])).joined(separator: "; ")
        let inputs = form.inputs.isEmpty ? "" : " " + form.inputsDescription
        return StepKey(key, request: "\(op) /\(path) " + fields.map { "\($0.key)=\($0.value)" }.joined(separator: "&") + (items.isEmpty ? "" : " [\(items)]") + inputs)
    }

    /// Applies the write `op` at `path`; returns the affected paths. An undo or redo also says what
    /// it did, and where, in `notice`.
    func apply(
        _ op: Substring, at path: TreePath, _ form: EditRequest, in source: any Source, model: DocumentModel, key: StepKey?,
        notice: inout StepNotice?
    ) async throws -> [TreePath] {
        let paths: [TreePath]
        switch op {
            case "add":
                paths = try await addNode(at: path, form, in: source, model: model, key: key)
            case "update":
                paths = try await updateFields(at: path, form, in: source, model: model, key: key)
            case "rename":
                let title = (form["title"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
                guard !path.isRoot else { throw WebError.badRequest("The root has no title to rename.") }
                paths = title.isEmpty ? [] : [try await model.apply(.updateTitle(path, title: title), key: key)]
            case "delete":
                guard !path.isRoot else { throw WebError.badRequest("The root cannot be deleted.") }
                paths = [try await model.apply(.delete(path), key: key)]
            case "move":
                paths = try await move(path, form, in: source, model: model, key: key)
            case "set":
                let control = try boundControl(form["control"], at: path, in: source)
                let input: ControlInput
                if let value = form["value"] {
                    input = .set(value)
                } else if let step = form["step"] {
                    guard let n = Int(step.replacingOccurrences(of: "+", with: "")) else {
                        throw WebError.badRequest("step must be a whole number such as +1 or -1, not '\(step)'.")
                    }
                    input = .step(n)
                } else if control.kind == .button {
                    input = .press
                } else {
                    input = .toggle
                }
                paths = try await model.operate(control, with: input, at: path, key: key)
            case "run":
                guard let action = form["action"], !action.isEmpty else { throw WebError.badRequest("Give the action to run as action=.") }
                paths = try await model.run(action, at: path, key: key)
            case "batch":
                paths = try await batch(try form.batchItems(), in: source, model: model, key: key)
            case "undo", "redo":
                let step = op == "undo" ? try await model.undo(key: key) : try await model.redo(key: key)
                if let step { notice = StepNotice(op: String(op), step: step, in: model.versionedSource.source) }
                paths = step?.paths ?? []
            default:
                throw WebError.notFound("There is no edit called '\(op)'.")
        }
        return paths
    }

    /// A batch: every item's changes, in order, applied as one step.
    /// - Returns: where each change's node is after the step (see ``SelectionEdit/finalPaths(of:results:)``).
    func batch(_ items: [BatchItem], in source: any Source, model: DocumentModel, key: StepKey?) async throws -> [TreePath] {
        guard !items.isEmpty else {
            throw WebError.badRequest("Give the changes as {\"changes\": [{\"op\": \"delete\", \"paths\": [\"0.1\"]}, …]}, or a form's op= and paths=.")
        }
        guard items.count <= 1000 else { throw WebError.badRequest("A batch takes at most 1000 changes.") }
        if let first = items.first, first.op == "move", first.to == nil, first.direction == "down",
            let parent = source.node(at: first.paths[0].parent), let last = first.paths.compactMap(\.indices.last).max(),
            last >= source.childCount(of: parent) - 1 {
            throw WebError.badRequest("The last row of its level cannot move down.")
        }
        var changes: [Change] = []
        for item in items { changes += try item.changes() }
        let results = try await model.apply(changes, key: key)
        return SelectionEdit.finalPaths(of: changes, results: results)
    }

    /// A move: among its siblings (`direction=up|down`, or `index=N` without `to`), or under the
    /// node named by `to` (a TreePath or title path, empty for the root) at `index` (appended
    /// without one; counted after the node has left its place). Moving a node into its own
    /// subtree is refused by the core, whose message the answer carries.
    /// - Returns: the node's new path, or nothing when it stays where it is.
    func move(_ path: TreePath, _ form: EditRequest, in source: any Source, model: DocumentModel, key: StepKey?) async throws -> [TreePath] {
        guard let last = path.indices.last, let parent = source.node(at: path.parent) else {
            throw WebError.badRequest("The root cannot be moved.")
        }
        if let to = form["to"] {
            let destination = source.path(of: try NodeLookup.node(decoded: to, in: source).id)
            var index: Int?
            if let text = form["index"]?.trimmingCharacters(in: .whitespaces), !text.isEmpty {
                guard let n = Int(text), n >= 0 else { throw WebError.badRequest("index must be a row number (0 = first), not '\(text)'.") }
                index = n
            }
            if destination == path.parent, index == last || (index == nil && last == source.childCount(of: parent) - 1) { return [] }
            return [try await model.apply(.move(path, parent: destination, index: index), key: key)]
        }
        let count = source.childCount(of: parent)
        var index: Int
        switch form["direction"] {
        case "up": index = last - 1
        case "down": index = last + 1
        default:
            guard let text = form["index"], let n = Int(text) else {
                throw WebError.badRequest("Give direction=up or down, index=N, or to=PARENT (with an optional index=N).")
            }
            index = n
        }
        index = min(max(index, 0), count - 1)
        return index == last ? [] : [try await model.apply(.move(path, parent: path.parent, index: index), key: key)]
    }

    /// The control of the row at `path` named by its index or its target.
    func boundControl(_ name: String?, at path: TreePath, in source: any Source) throws -> Control {
        guard let id = source.node(at: path) else { throw WebError.notFound("No node at TreePath \(path).") }
        let controls = presenter.row(for: id, path: path).controls.map(\.control)
        guard !controls.isEmpty else { throw WebError.badRequest("The row at \(path) has no controls.") }
        guard let name, !name.isEmpty else {
            guard controls.count == 1 else { throw WebError.badRequest("Name the control with control=INDEX or its target.") }
            return controls[0]
        }
        if let index = Int(name), controls.indices.contains(index) { return controls[index] }
        if let control = controls.first(where: { $0.target == name || $0.label == name }) { return control }
        throw WebError.badRequest("The row at \(path) has no control '\(name)'.")
    }
}

extension HTTPField.Name {
    /// `Idempotency-Key`: a client's key for one write, so a retry is not applied twice.
    static let idempotencyKey = Self("Idempotency-Key")!
    /// `Idempotency-Replayed: true`: the answer is an earlier write's, replayed for its key.
    static let idempotencyReplayed = Self("Idempotency-Replayed")!
}
