import DrillDownCore
import Foundation
import HTTPTypes
import Hummingbird

/// The audit history of an editable server whose data keeps one (see ``DocumentModel/keepHistory(in:)``):
///
/// - `GET /history` (the data set) and `GET /history/PATH` (a node and everything below it):
///   who changed what, when, old → new, newest first, `?offset=&limit=` paged, each entry with a
///   Revert button (a form posted with the CSRF token: it works without the script);
/// - `GET /api/history?path=&offset=0&limit=50`: a ``HistoryListing`` (`{"total": N, "entries": [{"id",
///   "user", "time", "instance", "kind", "target", "summary", "differences", "changes", "inverse"}]}`);
/// - `POST /api/history/revert` (JSON `{"id": 12}`) and `POST /history/revert` (a form's `id=`):
///   the entry's inverse applied as a new change (see ``RevertPlan``); 409 with the reason when a
///   later change depends on it.
///
/// With accounts, a viewer sees only the entries of rows they may read; an editor may revert
/// their own changes (where they may still change the rows), and only an admin anyone's.
extension Site {
    func addHistoryRoutes(to router: Router<SiteContext>) {
        router.get("/history") { request, _ in try await historyPage(at: .root, request) }
        router.get("/history/**") { request, _ in
            let (id, _) = try NodeLookup.node(request.uri.path.dropFirst(9), in: source)
            return try await historyPage(at: source.path(of: id), request)
        }
        router.get("/api/history") { request, _ in
            let query = Query(request.uri.query)
            var path = TreePath.root
            if let text = query["path"], !text.isEmpty { path = source.path(of: try NodeLookup.node(decoded: text, in: source).id) }
            let page = try await historyEntries(at: path, offset: try query.int("offset", default: 0), limit: min(try query.int("limit", default: 50), options.maxAPILimit))
            return try Responses.json(HistoryListing(page))
        }
        router.post("/api/history/revert") { request, _ in try await revert(request, api: true) }
        router.post("/history/revert") { request, _ in try await revert(request, api: false) }
    }

    /// The model, when it keeps a history; else 404.
    func historyModel() async throws -> DocumentModel {
        guard let model, await model.historyLog != nil else { throw WebError.notFound("This data set keeps no history.") }
        return model
    }

    /// One page of the entries touching `path` that the request's user may read.
    func historyEntries(at path: TreePath, offset: Int, limit: Int) async throws -> HistoryPage {
        let model = try await historyModel()
        guard offset >= 0, limit >= 0 else { throw WebError.badRequest("offset and limit must not be negative.") }
        let access = RequestState.current?.access
        let page: HistoryPage
        do {
            if let access, access.hidesRows {
                let all = try await model.historyPage(touching: path, offset: 0, limit: Int.max).records
                page = HistoryPage(all.filter { record in (record.paths + record.changes.map(\.path)).allSatisfy { access.mayRead($0) } }, offset: offset, limit: limit)
            } else {
                page = try await model.historyPage(touching: path, offset: offset, limit: limit)
            }
        } catch {
            throw WebError(status: .serviceUnavailable, message: error.message)
        }
        return page
    }

    /// `GET /history[/PATH]`.
    func historyPage(at path: TreePath, _ request: Request) async throws -> Response {
        let query = Query(request.uri.query)
        let offset = try query.int("offset", default: 0)
        let page = try await historyEntries(at: path, offset: offset, limit: HistoryScreen.pageSize)
        let node = source.node(at: path) ?? source.root
        return Responses.html(HistoryScreen(site: self, node: node, page: page, offset: offset, error: query["error"]).render())
    }

    /// `POST /history/revert` and `/api/history/revert`.
    func revert(_ request: Request, api: Bool) async throws -> Response {
        let model = try await historyModel()
        let form = try await EditRequest.read(request, api: api, maxBytes: options.maxBodyBytes, tokens: csrf)
        guard let text = form["id"], let id = Int64(text), id > 0 else { throw WebError.badRequest("Give the number of the change to revert as id=.") }
        let back = form.back(or: "/history")
        do {
            let record = try await model.historyRecord(id)
            try authorizeRevert(record)
            let paths = try await model.revert(id)
            if form.wantsJSON {
                struct Result: Encodable { var revision: Int, reverted: Int64, paths: [String] }
                return try Responses.json(Result(revision: model.versionedState.revision, reverted: id, paths: paths.map(\.description)))
            }
            return Response(status: .seeOther, headers: [.location: back])
        } catch let error as EditError {
            let status: HTTPResponse.Status = error.reason == .conflict ? .conflict : error.message.hasPrefix("there is no change") ? .notFound : .badRequest
            if form.wantsJSON { throw WebError(status: status, message: error.message) }
            // Without the script: back to the history, with the reason.
            let separator = back.contains("?") ? "&" : "?"
            let reason = error.description.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            return Response(status: .seeOther, headers: [.location: back + separator + "error=" + reason])
        }
    }

    /// With accounts: an admin may revert any change; an editor only their own, where they may change the rows.
    func authorizeRevert(_ record: HistoryRecord) throws {
        guard let state = RequestState.current, let access = state.access else { return }
        let admin = access.role(at: .root) == .admin
        if !admin, record.user != state.user?.name {
            throw WebError.forbidden("\(access.user) may revert only their own changes: #\(record.id) was made by \(record.who), and reverting it needs the admin role")
        }
        do { try access.requireChanges(record.inverse, in: source) } catch { throw WebError.forbidden(error.message) }
    }

    /// Whether the request's user may revert `record` (for the Revert buttons).
    func mayRevert(_ record: HistoryRecord) -> Bool { (try? authorizeRevert(record)) != nil }
}
