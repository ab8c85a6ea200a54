import Foundation
import Hummingbird

/// Small constructors for the responses the app sends.
enum Responses {
    /// An HTML page.
    static func html(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-cache"],
            body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// An HTML page already written as bytes.
    static func html(_ page: HTML, status: HTTPResponse.Status = .ok) -> Response { html(page.buffer, status: status) }

    /// An HTML page's UTF-8 bytes, ready to send.
    static func html(_ page: ByteBuffer, status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-cache"],
            body: .init(byteBuffer: page))
    }

    /// A JSON document encoded from `value`, its object keys sorted (see ``jsonData(_:)``).
    static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        let data = try jsonData(value)
        return Response(
            status: status, headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-cache"],
            body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// The bytes of every JSON answer of the API: object keys in ascending order of their UTF-8
    /// bytes, at every level, and no escaped slashes. Foundation's encoder otherwise writes keys in
    /// an order seeded per process (Swift's hashing is randomized), so the same answer would differ
    /// in bytes between two server processes; sorted, clients and caches can compare answers.
    static func jsonData(_ value: some Encodable) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(value)
    }

    /// A redirect to `location` (a path on this server).
    static func redirect(_ location: String) -> Response {
        Response(status: .found, headers: [.location: location])
    }
}
