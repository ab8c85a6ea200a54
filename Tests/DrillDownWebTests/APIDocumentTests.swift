import DrillDownCore
import DrillDownWeb
import Foundation
import Hummingbird
import HTTPTypes
import HummingbirdTesting
import Testing

/// Keeps `/api/openapi.json` true: every API route the router registers is documented and every
/// documented operation is routed, and real answers of every documented operation match the
/// schema of their status.
@Suite("OpenAPI document")
struct APIDocumentTests {
    /// Requests answered by the `Examples/Data.plist` app, per documented GET operation, with the status each gets.
    static let seedRequests: [String: [(uri: String, status: Int)]] = [
        "/api/level": [("/api/level", 200), ("/api/level?offset=2&limit=1", 200), ("/api/level?offset=x", 400)],
        "/api/level/{path}": [
            ("/api/level/3.0", 200), ("/api/level/5?offset=990&limit=100", 200), ("/api/level/Item%204/Screen%20G", 200),
            ("/api/level/4", 200), ("/api/level/9.9", 404), ("/api/level/3..0", 400), ("/api/level/5?offset=99999999999", 200),
        ],
        "/api/node": [("/api/node", 200)],
        "/api/node/{path}": [("/api/node/3.0.0.0.0", 200), ("/api/node/4", 200), ("/api/node/5.3", 200), ("/api/node/7", 404)],
        "/api/search": [("/api/search?q=screen", 200), ("/api/search?q=row&values=1&limit=3", 200), ("/api/search?q=%20", 400),
                        ("/api/search?q=screen&offset=1&limit=2&in=3", 200), ("/api/search?q=screen&in=9", 404)],
        "/api/outline": [
            ("/api/outline", 200), ("/api/outline?open=1,1.0&limit=3", 200), ("/api/outline?all=1&closed=5&offset=2", 200),
            ("/api/outline?open=x", 400), ("/api/outline?open=1&focus=1.0&limit=2", 200), ("/api/outline?focus=1.0", 200),
            ("/api/outline?focus=9.9", 404),
        ],
        "/api/facets": [
            ("/api/facets?field=title", 200), ("/api/facets?path=3&field=title&where=title~item&limit=2", 200),
            ("/api/facets?field=nope", 400), ("/api/facets", 400), ("/api/facets?path=9.9&field=title", 404),
            ("/api/facets?field=title&where=title%3D", 400),
        ],
        "/api/openapi.json": [("/api/openapi.json", 200)],
        "/healthz": [("/healthz", 200)],
        "/readyz": [("/readyz", 200)],
    ]

    /// The same operations on the music app (images, kinds, subtitles, actions, detail buttons).
    static let musicRequests: [(uri: String, status: Int)] = [
        ("/api/level", 200), ("/api/level/0", 200), ("/api/level/0.0", 200), ("/api/level/0.0?where=length%3E360&where=name~blue", 200),
        ("/api/facets?path=0.0&field=length&where=length%3E360", 200), ("/api/level/0.0?where=length%3Elong", 400), ("/api/node/0.0.0", 200), ("/api/node/1", 200),
        ("/api/search?q=blue&values=1", 200), ("/api/outline?all=1", 200),
    ]

    @Test("every /api/ route the router registers is in the document, and every documented operation is routed")
    func routesMatchDocument() async throws {
        let document = try await Self.document()
        let documented = Set(try Self.operations(document).map { "\($0.method) \($0.path)" })
        let router = try await Self.editableRouter()
        let routed = router.routes.filter { ["/healthz", "/readyz"].contains($0.path.description) || $0.path.description.hasPrefix("/api/") }
            .map { (method: $0.method.rawValue, pattern: Self.regex(for: $0.path.description)) }
        #expect(!routed.isEmpty)
        for route in routed {
            let matches = documented.filter { $0.wholeMatch(of: try! Regex("\(route.method) \(route.pattern)")) != nil }
            #expect(!matches.isEmpty, "the route \(route.method) \(route.pattern) is not in openapi.json")
        }
        for operation in documented {
            let served = routed.contains { operation.wholeMatch(of: try! Regex("\($0.method) \($0.pattern)")) != nil }
            #expect(served, "openapi.json documents \(operation), which no route serves")
        }
        // A read-only server routes every documented GET and no write.
        let readOnly = try WebServer(presenter: Presenter(source: DocumentSource(tree: seed000.tree)), dataFolder: nil).makeRouter()
        #expect(!readOnly.routes.contains { $0.path.description.hasPrefix("/api/edit") })
    }

    @Test("real answers of every documented GET match their schemas, on two data sets")
    func getAnswersMatchSchemas() async throws {
        let document = try await Self.document()
        let gets = try Self.operations(document).filter { $0.method == "GET" }.map(\.path)
        #expect(Set(gets) == Set(Self.seedRequests.keys), "give each documented GET sample requests here")
        try await seedApp().test(.router) { client in
            for (path, requests) in Self.seedRequests {
                for (uri, status) in requests {
                    try await Self.check(client, uri: uri, expecting: status, operation: path, method: "GET", in: document)
                }
            }
        }
        try await musicApp().app.test(.router) { client in
            for (uri, status) in Self.musicRequests {
                let path = uri.split(separator: "?")[0]
                let operation = gets.first { $0 == path } ?? (path.hasPrefix("/api/level") ? "/api/level/{path}" : "/api/node/{path}")
                try await Self.check(client, uri: uri, expecting: status, operation: operation, method: "GET", in: document)
            }
        }
    }

    @Test("answers of the edit API (changes, refusals, errors) match their schemas")
    func editAnswersMatchSchemas() async throws {
        let document = try await Self.document()
        let (app, _) = try await editableApp()
        try await app.test(.router) { client in
            let (cookie, token) = try await session(client)
            let cases: [(uri: String, body: String, operation: String, status: Int)] = [
                ("/api/edit/add", #"{"title": "New"}"#, "/api/edit/add", 200),
                ("/api/edit/add/0", #"{"title": "Child"}"#, "/api/edit/add/{path}", 200),
                ("/api/edit/rename/1", #"{"title": "Screen"}"#, "/api/edit/rename/{path}", 200),
                ("/api/edit/update/0.1", #"{"attributes": {"volume": "70"}}"#, "/api/edit/update/{path}", 200),
                ("/api/edit/update/0.1", #"{"unset": ["note"]}"#, "/api/edit/update/{path}", 400),
                ("/api/edit/update/0.1", #"{"attributes": {"volume": "loud"}}"#, "/api/edit/update/{path}", 400),
                ("/api/edit/update/0.1", #"{"attributes": [1]}"#, "/api/edit/update/{path}", 400),
                ("/api/edit/add/0", #"{"title": "Bell", "attributes": {"plays": 2}}"#, "/api/edit/add/{path}", 200),
                ("/api/edit/set/0.0", #"{"toggle": 1}"#, "/api/edit/set/{path}", 200),
                ("/api/edit/set/0.1", #"{"step": -1}"#, "/api/edit/set/{path}", 200),
                ("/api/edit/set/0.1", #"{"value": "nope"}"#, "/api/edit/set/{path}", 400),
                ("/api/edit/run/0.2", #"{"action": "play"}"#, "/api/edit/run/{path}", 200),
                ("/api/edit/move/1", #"{"direction": "up"}"#, "/api/edit/move/{path}", 200),
                ("/api/edit/move/1", #"{"index": 99}"#, "/api/edit/move/{path}", 200),
                ("/api/edit/move/3.0", #"{"to": "0", "index": 0}"#, "/api/edit/move/{path}", 200),
                ("/api/edit/move/0", #"{"to": "0.0"}"#, "/api/edit/move/{path}", 400),
                ("/api/edit/delete/2", "{}", "/api/edit/delete/{path}", 200),
                ("/api/edit/delete/9", "{}", "/api/edit/delete/{path}", 404),
                ("/api/edit/batch", #"{"changes": [{"op": "rename", "path": "0", "title": "A"}, {"op": "rename", "paths": ["1"], "title": "B"}]}"#, "/api/edit/batch", 200),
                ("/api/edit/batch", #"{"changes": [{"op": "delete", "paths": ["1", "0.0"]}]}"#, "/api/edit/batch", 200),
                ("/api/edit/batch", #"{"changes": [{"op": "shred", "path": "0"}]}"#, "/api/edit/batch", 400),
                ("/api/edit/undo", "", "/api/edit/undo", 200),
                ("/api/edit/redo", "", "/api/edit/redo", 200),
                ("/api/edit/rename/0", "[1]", "/api/edit/rename/{path}", 400),
            ]
            let posts = try Self.operations(document).filter { $0.method == "POST" }.map(\.path)
            #expect(Set(posts) == Set(cases.map(\.operation)), "give each documented write a sample request here")
            for item in cases {
                let response = try await client.edit(item.uri, item.body, cookie: cookie, token: token)
                try Self.validate(response, expecting: item.status, operation: item.operation, method: "POST", uri: item.uri, in: document)
            }
            let forged = (token.hasPrefix("0") ? "1" : "0") + token.dropFirst()
            let refused = try await client.edit("/api/edit/delete/0", cookie: cookie, token: forged)
            try Self.validate(refused, expecting: 403, operation: "/api/edit/delete/{path}", method: "POST", uri: "forged", in: document)
        }
    }

    // MARK: - The document

    static func document() async throws -> JSONValue {
        try await seedApp().test(.router) { client in
            try await client.execute(uri: "/api/openapi.json", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "application/json; charset=utf-8")
                return try JSONDecoder().decode(JSONValue.self, from: Data(buffer: response.body))
            }
        }
    }

    static func editableRouter() async throws -> Router<SiteContext> {
        let schema = Schema()
        let model = DocumentModel(
            document: EditableDocument(source: DocumentSource(tree: seed000.tree), schema: schema), actions: try ActionSet(schema: schema))
        return try await WebServer(model: model, schema: schema, dataFolder: nil).makeRouter()
    }

    /// Every (method, path template) the document lists.
    static func operations(_ document: JSONValue) throws -> [(method: String, path: String)] {
        guard case .object(let paths)? = document["paths"] else { throw SchemaViolation("the document has no paths") }
        return paths.flatMap { path, item in
            // The sign-in pages and presence exist on servers with accounts only; schemathesis covers them (e2e/web/test_api_fuzz.py).
            // `/events` is a stream that stays open: e2e/web tests follow it.
            guard case .object(let methods) = item, methods["x-drilldown-accounts"] == nil, methods["x-drilldown-stream"] == nil else {
                return [(method: String, path: String)]()
            }
            return methods.keys.filter { ["get", "post", "put", "delete", "patch"].contains($0) }.map { (method: $0.uppercased(), path: path) }
        }
    }

    /// A regular expression that matches the document paths a router path serves (`{path}` is one segment).
    static func regex(for routerPath: String) -> String {
        routerPath.split(separator: "/", omittingEmptySubsequences: false).map { segment -> String in
            switch segment {
            case "**": "[^/]+(/[^/]+)*"
            case "*": "[^/]+"
            case _ where segment.hasPrefix(":"): "[^/]+"
            default: NSRegularExpression.escapedPattern(for: String(segment))
            }
        }.joined(separator: "/")
    }

    static func check(
        _ client: some TestClientProtocol, uri: String, expecting status: Int, operation: String, method: String, in document: JSONValue
    ) async throws {
        let response = try await client.execute(uri: uri, method: .get) { $0 }
        try validate(response, expecting: status, operation: operation, method: method, uri: uri, in: document)
    }

    /// Checks that the answer has the expected status, that the document lists that status for the
    /// operation, and that the body matches its schema.
    static func validate(
        _ response: TestResponse, expecting status: Int, operation: String, method: String, uri: String, in document: JSONValue
    ) throws {
        #expect(Int(response.status.code) == status, "\(method) \(uri): \(response.status) \(String(buffer: response.body))")
        guard let answer = document["paths"]?[operation]?[method.lowercased()]?["responses"]?[String(response.status.code)] else {
            Issue.record("\(method) \(uri): openapi.json lists no \(response.status.code) answer for \(operation)")
            return
        }
        if answer["content"]?["text/plain"] != nil {
            #expect(response.headers[.contentType]?.hasPrefix("text/plain") == true, "\(method) \(uri)")
            return
        }
        #expect(response.headers[.contentType]?.hasPrefix("application/json") == true, "\(method) \(uri)")
        guard let schema = answer["content"]?["application/json"]?["schema"] else { return }
        let body = try JSONDecoder().decode(JSONValue.self, from: Data(buffer: response.body))
        do {
            try SchemaValidator(document: document).validate(body, against: schema, at: "$")
        } catch let violation as SchemaViolation {
            Issue.record("\(method) \(uri): \(violation.message)")
        }
    }
}

/// A decoded JSON value that keeps booleans, integers and reals apart.
enum JSONValue: Decodable, Equatable {
    case null, bool(Bool), int(Int), number(Double), string(String), array([JSONValue]), object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let value = try? container.decode(Bool.self) { self = .bool(value) }
        else if let value = try? container.decode(Int.self) { self = .int(value) }
        else if let value = try? container.decode(Double.self) { self = .number(value) }
        else if let value = try? container.decode(String.self) { self = .string(value) }
        else if let value = try? container.decode([JSONValue].self) { self = .array(value) }
        else { self = .object(try container.decode([String: JSONValue].self)) }
    }

    subscript(_ key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    var string: String? { if case .string(let s) = self { s } else { nil } }
}

struct SchemaViolation: Error {
    var message: String
    init(_ message: String) { self.message = message }
}

/// The part of OpenAPI 3.0 schemas the document uses: `$ref`, `type`, `properties`, `required`,
/// `additionalProperties`, `items`, `enum`, `oneOf`, `minimum`, `maximum`, `minLength`, `maxLength`.
struct SchemaValidator {
    let document: JSONValue

    func validate(_ value: JSONValue, against schema: JSONValue, at where_: String) throws {
        if let ref = schema["$ref"]?.string {
            guard let name = ref.split(separator: "/").last, let target = document["components"]?["schemas"]?[String(name)] else {
                throw SchemaViolation("\(where_): unknown $ref \(ref)")
            }
            return try validate(value, against: target, at: where_)
        }
        if case .array(let options)? = schema["oneOf"] {
            let matching = options.filter { (try? validate(value, against: $0, at: where_)) != nil }
            guard matching.count == 1 else { throw SchemaViolation("\(where_): \(value) matches \(matching.count) of oneOf") }
        }
        if case .array(let allowed)? = schema["enum"], !allowed.contains(value) {
            throw SchemaViolation("\(where_): \(value) is not one of \(allowed)")
        }
        switch (schema["type"]?.string, value) {
        case (nil, _), ("boolean", .bool), ("array", .array), ("object", .object):
            break
        case ("string", .string(let text)):
            if case .int(let min)? = schema["minLength"], text.count < min { throw SchemaViolation("\(where_): shorter than \(min)") }
            if case .int(let max)? = schema["maxLength"], text.count > max { throw SchemaViolation("\(where_): longer than \(max)") }
        case ("integer", .int(let n)), ("number", .int(let n)):
            if case .int(let min)? = schema["minimum"], n < min { throw SchemaViolation("\(where_): \(n) < \(min)") }
            if case .int(let max)? = schema["maximum"], n > max { throw SchemaViolation("\(where_): \(n) > \(max)") }
        case ("number", .number):
            break
        case (let type?, _):
            throw SchemaViolation("\(where_): \(value) is not of type \(type)")
        }
        if case .array(let items) = value, let itemSchema = schema["items"] {
            for (i, item) in items.enumerated() { try validate(item, against: itemSchema, at: "\(where_)[\(i)]") }
        }
        if case .object(let members) = value {
            if case .array(let required)? = schema["required"] {
                for case .string(let key) in required where members[key] == nil {
                    throw SchemaViolation("\(where_): the required member '\(key)' is missing")
                }
            }
            let properties: [String: JSONValue]
            if case .object(let p)? = schema["properties"] { properties = p } else { properties = [:] }
            for (key, member) in members {
                if let property = properties[key] {
                    try validate(member, against: property, at: "\(where_).\(key)")
                } else if schema["additionalProperties"] == .bool(false) {
                    throw SchemaViolation("\(where_): '\(key)' is not in the schema")
                } else if let extra = schema["additionalProperties"], case .object = extra {
                    try validate(member, against: extra, at: "\(where_).\(key)")
                }
            }
        }
    }
}
