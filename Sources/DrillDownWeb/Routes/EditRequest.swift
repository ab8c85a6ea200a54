import DrillDownCore
import Foundation
import HTTPTypes
import Hummingbird

/// One write request, from a plain HTML form (`application/x-www-form-urlencoded`) or the JSON
/// API (a JSON object of strings and numbers), with its CSRF token checked.
///
/// The values of a row's fields (``FieldForm``) travel apart from the request's own fields, in
/// ``inputs``: from JSON, `"value": V` (a scalar leaf's) and `"attributes": {"key": V}`, where a
/// JSON string is text as typed (`.text`) and a number, `true`/`false` or `null` a typed value,
/// and `"unset": ["key"]`; from a form, `f.KEY=text` for each field, where a field whose text is
/// its `o.KEY` (the text the form showed) is left out, so only what was changed is submitted.
struct EditRequest {
    /// The fields posted.
    var fields: [String: String]
    /// The row's field values posted, by field key.
    var inputs: [String: FieldForm.Input] = [:]
    /// The changes of a batch (`POST /edit/batch`) sent as JSON: the body's `changes`.
    var items: [BatchItem] = []
    /// Every `paths` value of a form (its ticked checkboxes), for a batch posted by a form.
    var formPaths: [String] = []
    /// The lists of strings a JSON body sent (`"levels": ["", "0"]`), and every value of a key a
    /// form repeats, by key: see ``list(_:)``.
    var lists: [String: [String]] = [:]
    /// Whether the answer is JSON (the `/api/` routes, or a script asking with `Accept: application/json`)
    /// rather than a redirect back to the page (Post/Redirect/Get).
    var wantsJSON: Bool

    subscript(_ key: String) -> String? { fields[key] }

    /// The list sent as `key` (a JSON list of strings, or a form's values of `key`); `nil` when absent.
    func list(_ key: String) -> [String]? { lists[key] ?? fields[key].map { [$0] } }

    /// Reads the body (already limited in size by ``WriteGuardMiddleware``) and checks that the
    /// `X-CSRF-Token` header or the `csrf` field is the token `tokens` issued for the session cookie.
    /// - Throws: ``WebError`` 403 when the token is missing or wrong, 400 for a malformed body.
    static func read(_ request: Request, api: Bool, maxBytes: Int, tokens: CSRFTokens) async throws -> EditRequest {
        var request = request
        let body = try await request.collectBody(upTo: maxBytes)
        let bytes = Data(buffer: body)
        let type = request.headers[.contentType]?.lowercased() ?? ""
        var fields: [String: String] = [:]
        if type.hasPrefix("application/json") {
            guard !bytes.isEmpty else { return try checked(EditRequest(fields: [:], wantsJSON: true), request, tokens) }
            guard let object = try? JSONSerialization.jsonObject(with: bytes) as? [String: Any] else {
                throw WebError.badRequest("The body is not a JSON object.")
            }
            var items: [BatchItem] = []
            if let changes = object["changes"] {
                guard let list = changes as? [Any] else { throw WebError.badRequest("'changes' must be a list of change objects.") }
                items = try list.enumerated().map { k, item throws(WebError) in try BatchItem(json: item, at: k) }
            }
            var inputs: [String: FieldForm.Input] = [:]
            var lists: [String: [String]] = [:]
            for (key, value) in object where key != "changes" {
                switch (key, value) {
                case ("levels", let list as [Any]):
                    guard let texts = list as? [String] else { throw WebError.badRequest("'levels' must be a list of TreePaths (strings).") }
                    lists[key] = texts
                case ("attributes", let members as [String: Any]):
                    for (name, member) in members { inputs[name] = try Self.input(member, name: "attributes.\(name)") }
                case ("unset", let names as [Any]):
                    for name in names {
                        guard let name = name as? String else { throw WebError.badRequest("'unset' must be a list of field keys.") }
                        inputs[name] = .unset
                    }
                case ("attributes", _), ("unset", _):
                    throw WebError.badRequest("'attributes' must be an object of field values and 'unset' a list of field keys.")
                case (_, let text as String): fields[key] = text
                case (_, let number as NSNumber) where !Self.isBool(number): fields[key] = number.stringValue
                case ("value", let flag as NSNumber): fields[key] = flag.boolValue ? "true" : "false"
                case ("value", _): break
                default: throw WebError.badRequest("The field '\(key)' must be a string or a number.")
                }
                if key == "value" { inputs[FieldForm.valueKey] = try Self.input(value, name: key) }
            }
            let accept = request.headers[.accept] ?? ""
            let edit = EditRequest(fields: fields, inputs: inputs, items: items, lists: lists, wantsJSON: api || accept.contains("application/json"))
            return try checked(edit, request, tokens)
        }
        guard let text = String(data: bytes, encoding: .utf8) else { throw WebError.badRequest("The form is not UTF-8.") }
        let query = Query(text)
        fields = query.values
        var inputs: [String: FieldForm.Input] = [:]
        for (name, text) in fields where name.hasPrefix("f.") && name.count > 2 {
            let key = String(name.dropFirst(2))
            if fields["o.\(key)"] != text { inputs[key] = .text(text) }
        }
        let paths = query.all("paths").flatMap { $0.split(separator: ",").map(String.init) }
        let accept = request.headers[.accept] ?? ""
        let lists = query.all("levels").isEmpty ? [:] : ["levels": query.all("levels")]
        return try checked(
            EditRequest(fields: fields, inputs: inputs, formPaths: paths, lists: lists, wantsJSON: api || accept.contains("application/json")), request,
            tokens)
    }

    /// A field's value from JSON: a string is text as people type it, a number, boolean or null a
    /// typed value.
    static func input(_ value: Any, name: String) throws -> FieldForm.Input {
        switch value {
        case let text as String: return .text(text)
        case is NSNull: return .typed(Scalar(.null, ""))
        case let number as NSNumber:
            if isBool(number) { return .typed(Scalar(.bool, number.boolValue ? "true" : "false")) }
            let real = ["d", "f"].contains(String(cString: number.objCType))
            return .typed(Scalar(real ? .real : .integer, number.stringValue))
        default: throw WebError.badRequest("'\(name)' must be a string, a number, true, false or null.")
        }
    }

    /// Whether JSON's `true` or `false` (not a number) was read as `number`.
    static func isBool(_ number: NSNumber) -> Bool { String(cString: number.objCType) == "c" }

    /// The field values in a fixed order, for a step key: `key=text`, `key:=typed`, `key!`.
    var inputsDescription: String {
        inputs.sorted { $0.key < $1.key }.map { key, input in
            switch input {
            case .text(let t): "\(key)=\(t)"
            case .typed(let s): "\(key):=\(s.kind) \(s.text)"
            case .unset: "\(key)!"
            }
        }.joined(separator: "&")
    }

    private static func checked(_ edit: EditRequest, _ request: Request, _ tokens: CSRFTokens) throws -> EditRequest {
        // With accounts: a bearer request carries no cookie and needs no token; a session's token
        // is bound to its user and session id (see ``SnapshotMiddleware``).
        if let state = RequestState.current, let user = state.user {
            if user.means == .bearer { return edit }
            let sent = request.headers[.csrfToken] ?? edit.fields["csrf"] ?? ""
            guard !state.csrf.isEmpty, tokens.same(sent, state.csrf) else {
                throw WebError.forbidden("The change was refused: its CSRF token was not issued for \(user.name)'s session. Reload the page and try again.")
            }
            return edit
        }
        guard let session = CSRFTokens.sessionID(in: request.headers[values: .cookie]) else {
            throw WebError.forbidden("This change has no session: reload the page and try again.")
        }
        let sent = request.headers[.csrfToken] ?? edit.fields["csrf"] ?? ""
        guard tokens.verify(sent, session: session) else {
            throw WebError.forbidden("The change was refused: its CSRF token was not issued for this session. Reload the page and try again.")
        }
        return edit
    }

    /// The changes of a batch: the JSON body's `changes`, or the one change a form describes with
    /// `op` (`move` when only `direction` is given), `paths`, `to`, `index` and `title`.
    func batchItems() throws(WebError) -> [BatchItem] {
        if !items.isEmpty { return items }
        guard let op = fields["op"] ?? (fields["direction"] == nil ? nil : "move") else { return [] }
        return [try BatchItem(form: fields, paths: formPaths, op: op)]
    }

    /// A local URL to return to after the change: the `back` field when it is a path on this
    /// server, else `fallback`.
    func back(or fallback: String) -> String {
        if let back = fields["back"], Self.isLocal(back) { return back }
        return fallback
    }

    /// Whether `url` is a path on this server (`/l/0`), not another site (`//evil`, `/\evil`, `https:`).
    static func isLocal(_ url: String?) -> Bool {
        guard let url, url.hasPrefix("/"), !url.hasPrefix("//"), !url.contains("\\") else { return false }
        return !url.unicodeScalars.contains { $0.value < 32 || $0.value == 127 }
    }
}
