import Crypto
import Foundation
import HTTPTypes

/// A signed-in session, kept in the `dd_auth` cookie and signed (HMAC-SHA256) with the secret
/// every instance shares (`--secret-file`), so a session made on one instance is accepted by all
/// and none keeps state: `v3.SID.USER.BEGAN.MAC`, where SID is 128 random bits drawn at sign-in
/// (the session's CSRF tokens are bound to it), USER the name, BEGAN the sign-in's Unix time in
/// milliseconds (the session expires ``lifetime`` after its whole second) and MAC the HMAC of the
/// rest, the version included; SID, USER and MAC are base64url (``Base64URL``). A value the client
/// made up or changed fails the MAC and is ignored. BEGAN is what the users file's `sessionsFrom`
/// is compared with (``UsersFile/hasEnded(_:of:)``), to the millisecond: a session begun just
/// before a password change ends, one begun just after it does not.
/// (Version 1 wrote SID and MAC in hex, 31 bytes more to parse on every request, and no begin
/// time; its cookies are no longer accepted, so an upgrade signs everyone out once.)
struct SessionCookie: Sendable, Equatable {
    /// The cookie's name.
    static let name = "dd_auth"
    /// What a cookie-pair holding the session starts with.
    static let pairPrefix = name + "="
    /// ``pairPrefix``'s 8 bytes as one little-endian word (compared with one load).
    private static let pairPrefixWord = pairPrefix.utf8.reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    /// How long a session lasts.
    static let lifetime: TimeInterval = 12 * 3600

    /// The cookie's version, the first field of its value.
    static let version = "v3"
    /// The session id: 22 base64url characters (128 bits).
    var id: String
    /// The signed-in user.
    var user: String
    /// When the session ends.
    var expires: Date
    /// When the session began (signed in), to the millisecond.
    var began: Date

    /// A new session for `user`, with a fresh id.
    static func new(for user: String, now: Date = Date()) -> SessionCookie {
        session(id: Base64URL.encode(UsersFile.randomBytes(16)), user: user, beganMilliseconds: Int64((now.timeIntervalSince1970 * 1000).rounded(.down)))
    }

    /// The session that began at `milliseconds` (Unix time) and expires ``lifetime`` after its whole second.
    private static func session(id: String, user: String, beganMilliseconds milliseconds: Int64) -> SessionCookie {
        let seconds = milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
        return SessionCookie(
            id: id, user: user, expires: Date(timeIntervalSince1970: TimeInterval(seconds) + lifetime),
            began: Date(timeIntervalSince1970: TimeInterval(milliseconds) / 1000))
    }

    /// The cookie's value signed with `signer`.
    func value(signedWith signer: CSRFTokens) -> String {
        let body = "\(Self.version).\(id).\(Base64URL.encode(user.utf8)).\(Int64((began.timeIntervalSince1970 * 1000).rounded()))"
        return body + "." + Base64URL.encode(signer.code(Self.signed(body)))
    }

    /// What a cookie's MAC signs: its value up to the MAC, marked as a session's.
    static func signed(_ body: String) -> String { "session|" + body }

    /// The first non-`nil` result of `body` for the values of the `dd_auth` cookie-pairs in one
    /// `Cookie` header, in order, spaces and tabs around a pair trimmed (RFC 6265 §5.2). Read as
    /// bytes: walking the header as Characters (`split`, `drop`, `hasPrefix` on a String) was a
    /// sixth of a signed-in cached page's instructions.
    static func firstValue<T>(in header: UnsafeBufferPointer<UInt8>, where body: (UnsafeBufferPointer<UInt8>) -> T?) -> T? {
        guard let base = header.baseAddress else { return nil }
        let end = header.count, prefix = pairPrefix.utf8.count  // 8: one word
        var start = 0
        while start < end {
            // The pair's end: the next ';' (memchr), or the header's end.
            let semicolon = memchr(base + start, Int32(UInt8(ascii: ";")), end - start).map { UnsafeRawPointer($0) - UnsafeRawPointer(base) } ?? end
            var low = start, high = semicolon
            while low < high, base[low] == 0x20 || base[low] == 0x09 { low += 1 }
            while high > low, base[high - 1] == 0x20 || base[high - 1] == 0x09 { high -= 1 }
            if high - low >= prefix, UInt64(littleEndian: UnsafeRawPointer(base + low).loadUnaligned(as: UInt64.self)) == pairPrefixWord,
                let found = body(UnsafeBufferPointer(start: base + low + prefix, count: high - low - prefix))
            {
                return found
            }
            start = semicolon + 1
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

    /// What the CSRF token of `user`'s session `session` signs: the token is bound to both.
    static func csrfMessage(user: String, session: String) -> String { "csrf|\(user)|\(session)" }

    /// The session `value` holds, when its MAC is `signer`'s (whatever its expiry).
    static func check(_ value: String, signer: CSRFTokens) -> SessionCookie? { verified(value, signer: signer)?.session }

    /// The session `value` holds and its MAC (what ``SessionCache`` keeps to recognise the cookie
    /// again), when the MAC is `signer`'s, compared in constant time by swift-crypto.
    static func verified(_ value: String, signer: CSRFTokens) -> (session: SessionCookie, code: HashedAuthenticationCode<SHA256>)? {
        let parts = value.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 5, parts[0] == version, parts[1].utf8.count == 22, let mac = Base64URL.decode(parts[4]) else { return nil }
        let code = signer.code(signed(parts[0 ..< 4].joined(separator: ".")))
        guard code == mac, let time = Int64(parts[3]), let name = Base64URL.decode(parts[2]), let user = String(validating: name, as: UTF8.self)
        else { return nil }
        return (session(id: parts[1], user: user, beganMilliseconds: time), code)
    }

    /// `body` called with a cookie value's part before its MAC (with the dot) and the MAC's
    /// 32 bytes, decoded onto the stack; `nil` when the value does not end in a MAC.
    static func withMAC<T>(of value: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>, UnsafeRawBufferPointer) -> T?) -> T? {
        guard value.count > macCharacters, value[value.count - macCharacters - 1] == UInt8(ascii: ".") else { return nil }
        let split = value.count - macCharacters
        return withUnsafeTemporaryAllocation(byteCount: 32, alignment: 8) { mac in
            guard Base64URL.decode(UnsafeBufferPointer(rebasing: value[split...]), into: mac) else { return nil }
            return body(UnsafeBufferPointer(rebasing: value[..<split]), UnsafeRawBufferPointer(mac))
        }
    }

    /// The length of a MAC in base64url: 32 bytes.
    private static let macCharacters = 43

    /// The `Set-Cookie` value that stores `value` (or, with `nil`, removes the cookie).
    static func setCookie(_ value: String?, secure: Bool) -> String {
        let tail = "; Path=/; HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "")
        guard let value else { return "\(name)=; Max-Age=0" + tail }
        return "\(name)=\(value); Max-Age=\(Int(lifetime))" + tail
    }

    static func hex(_ bytes: [UInt8]) -> String { CSRFTokens.hex(bytes) }
}
