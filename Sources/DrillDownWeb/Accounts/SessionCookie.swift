import Foundation
import HTTPTypes

/// A signed-in session, kept in the `dd_auth` cookie and signed (HMAC-SHA256) with the secret
/// every instance shares (`--secret-file`), so a session made on one instance is accepted by all
/// and none keeps state: `v1.SID.USER.EXPIRES.MAC`, where SID is 128 random bits drawn at sign-in
/// (the session's CSRF tokens are bound to it), USER the name base64url-encoded and EXPIRES a
/// Unix time. A value the client made up fails the MAC and is ignored.
struct SessionCookie: Sendable, Equatable {
    /// The cookie's name.
    static let name = "dd_auth"
    /// What a cookie-pair holding the session starts with.
    static let pairPrefix = name + "="
    /// How long a session lasts.
    static let lifetime: TimeInterval = 12 * 3600

    /// The session id: 32 hex digits.
    var id: String
    /// The signed-in user.
    var user: String
    /// When the session ends.
    var expires: Date

    /// A new session for `user`, with a fresh id.
    static func new(for user: String, now: Date = Date()) -> SessionCookie {
        // Whole seconds: what the cookie holds.
        SessionCookie(id: CSRFTokens.newSessionID(), user: user, expires: Date(timeIntervalSince1970: (now.timeIntervalSince1970 + lifetime).rounded(.down)))
    }

    /// The cookie's value signed with `signer`.
    func value(signedWith signer: CSRFTokens) -> String {
        let body = "v1.\(id).\(Self.base64url(user)).\(Int(expires.timeIntervalSince1970))"
        return body + "." + signer.sign("session|" + body)
    }

    /// The first non-`nil` result of `body` for the values of the `dd_auth` cookie-pairs in one
    /// `Cookie` header, in order, spaces and tabs around a pair trimmed (RFC 6265 §5.2). Read as
    /// bytes: walking the header as Characters (`split`, `drop`, `hasPrefix` on a String) was a
    /// sixth of a signed-in cached page's instructions.
    static func firstValue<T>(in header: UnsafeBufferPointer<UInt8>, where body: (UnsafeBufferPointer<UInt8>) -> T?) -> T? {
        var start = 0
        while start < header.count {
            var end = start
            while end < header.count, header[end] != UInt8(ascii: ";") { end += 1 }
            var low = start, high = end
            while low < high, header[low] == 0x20 || header[low] == 0x09 { low += 1 }
            while high > low, header[high - 1] == 0x20 || header[high - 1] == 0x09 { high -= 1 }
            if high - low >= pairPrefixBytes.count, pairPrefixBytes.indices.allSatisfy({ header[low + $0] == pairPrefixBytes[$0] }),
                let found = body(UnsafeBufferPointer(rebasing: header[(low + pairPrefixBytes.count) ..< high]))
            {
                return found
            }
            start = end + 1
        }
        return nil
    }

    /// ``firstValue(in:where:)`` over every `Cookie` field of `headers`, read where they are held.
    static func firstValue<T>(in headers: HTTPFields, where body: (UnsafeBufferPointer<UInt8>) -> T?) -> T? {
        for field in headers where field.name == .cookie {
            if let found = field.withUnsafeBytesOfValue({ firstValue(in: $0, where: body) }) { return found }
        }
        return nil
    }

    /// ``pairPrefix`` as bytes.
    private static let pairPrefixBytes = Array(pairPrefix.utf8)

    /// What the CSRF token of `user`'s session `session` signs: the token is bound to both.
    static func csrfMessage(user: String, session: String) -> String { "csrf|\(user)|\(session)" }

    /// The session `value` holds, when its MAC is `signer`'s (whatever its expiry).
    static func check(_ value: String, signer: CSRFTokens) -> SessionCookie? {
        let parts = value.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 5, parts[0] == "v1", parts[1].utf8.count == 32 else { return nil }
        let body = parts[0 ..< 4].joined(separator: ".")
        guard signer.isSignature(parts[4], of: "session|" + body) else { return nil }
        guard let seconds = Int(parts[3]), let user = unbase64url(parts[2]) else { return nil }
        return SessionCookie(id: parts[1], user: user, expires: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }

    /// The `Set-Cookie` value that stores `value` (or, with `nil`, removes the cookie).
    static func setCookie(_ value: String?, secure: Bool) -> String {
        let tail = "; Path=/; HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "")
        guard let value else { return "\(name)=; Max-Age=0" + tail }
        return "\(name)=\(value); Max-Age=\(Int(lifetime))" + tail
    }

    static func base64url(_ text: String) -> String {
        Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func unbase64url(_ text: String) -> String? {
        var b = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while b.count % 4 != 0 { b += "=" }
        return Data(base64Encoded: b).flatMap { String(data: $0, encoding: .utf8) }
    }

    static func hex(_ bytes: [UInt8]) -> String { CSRFTokens.hex(bytes) }
}
