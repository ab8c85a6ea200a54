import Hummingbird

/// A request that cannot be answered, with the status and the message people see.
///
/// Handlers throw it; ``ErrorPageMiddleware`` turns it into an HTML page or, under `/api/`,
/// into JSON `{"error": "..."}` (with `"field"` naming a refused form field).
struct WebError: Error, Sendable {
    /// The response status.
    var status: HTTPResponse.Status
    /// What went wrong, for people.
    var message: String
    /// Extra response headers (e.g. `Allow` on a 405).
    var headers: HTTPFields = [:]
    /// `"unknown"` when a write may or may not have been stored (the JSON answer's `outcome`).
    var outcome: String?
    /// The key of the form field whose value was refused (the JSON answer's `field`), when one was.
    var field: String?

    static func notFound(_ message: String) -> WebError { WebError(status: .notFound, message: message) }
    static func badRequest(_ message: String) -> WebError { WebError(status: .badRequest, message: message) }
    static func forbidden(_ message: String) -> WebError { WebError(status: .forbidden, message: message) }
}
