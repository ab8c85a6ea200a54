import Crypto
import Foundation
import HTTPTypes

/// A signed-in session, kept in the `dd_auth` cookie and signed (HMAC-SHA256) with the secret
/// every instance shares (`--secret-file`), so a session made on one instance is accepted by all
/// and none keeps state: `v4.SID.USER.BEGAN.MAC`, where SID is 88 random bits drawn at sign-in
/// (the session's CSRF tokens are bound to it), USER the name, BEGAN the sign-in's Unix time in
/// milliseconds (the session expires ``lifetime`` after its whole second) and MAC the first 128
/// bits of the HMAC of the rest, the version included (a truncation RFC 2104 §5 allows down to half
/// the hash's length); SID, USER and MAC are base64url (``Base64URL``). A value the client made up
/// or changed fails the MAC and is ignored. BEGAN is what the users file's `sessionsFrom` is
/// compared with (``UsersFile/hasEnded(_:of:)``), to the millisecond: a session begun just before a
/// password change ends, one begun just after it does not.
///
/// The cookie is short: 60 bytes for a three-letter name. Its bytes are parsed, checked and copied
/// by the HTTP layer on every request, and the SID's 15 characters fit a small string, which the
/// copies of the signed-in user a request makes carry without a reference count. (Version 1 wrote
/// SID and MAC in hex and had no begin time; version 3 had a 128-bit SID and the whole 256-bit
/// MAC, 28 bytes more. Neither is accepted, so an upgrade signs everyone out once.)
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
    static let version = "v4"
    /// The session id: 15 base64url characters (88 bits).
    var id: String
    /// The signed-in user.
    var user: String
    /// When the session ends.
    var expires: Date
    /// When the session began (signed in), to the millisecond.
    var began: Date

    /// A new session for `user`, with a fresh id.
    static func new(for user: String, now: Date = Date()) -> SessionCookie {
        session(id: Base64URL.encode(UsersFile.randomBytes(idBytes)), user: user, beganMilliseconds: Int64((now.timeIntervalSince1970 * 1000).rounded(.down)))
    }

    /// The session that began at `milliseconds` (Unix time) and expires ``lifetime`` after its whole second.
    private static func session(id: String, user: String, beganMilliseconds milliseconds: Int64) -> SessionCookie {
        let seconds = milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
        return SessionCookie(
            id: id, user: user, expires: Date(timeIntervalSince1970: TimeInterval(seconds) + lifetime),
            began: Date(timeIntervalSince1970: TimeInterval(milliseconds) / 1000))
    }

    /// How many random bytes a session id has.
    static let idBytes = 11
    /// How many bytes of the HMAC a cookie carries.
    static let macBytes = 16
    /// The length of a MAC in base64url.
    private static let macCharacters = 22

    /// The cookie's value signed with `signer`.
    func value(signedWith signer: CSRFTokens) -> String {
        let body = "\(Self.version).\(id).\(Base64URL.encode(user.utf8)).\(Int64((began.timeIntervalSince1970 * 1000).rounded()))"
        return body + "." + Base64URL.encode(signer.code(Self.signed(body)).prefix(Self.macBytes))
    }

    /// What a cookie's MAC signs: its value up to the MAC, marked as a session's.
    static func signed(_ body: String) -> String { "session|" + body }

    /// The MAC a cookie whose value up to its MAC is `body` carries: the first ``macBytes`` of its
    /// HMAC under `signer`, as a `SymmetricKey` (whose `==` swift-crypto makes constant-time).
    static func mac(of body: String, signer: CSRFTokens) -> SymmetricKey {
        signer.code(signed(body)).withUnsafeBytes { SymmetricKey(data: UnsafeRawBufferPointer(rebasing: $0.prefix(macBytes))) }
    }

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
    static func verified(_ value: String, signer: CSRFTokens) -> (session: SessionCookie, code: SymmetricKey)? {
        let parts = value.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 5, parts[0] == version, parts[1].utf8.count == idCharacters, parts[4].utf8.count == macCharacters,
            let sent = Base64URL.decode(parts[4])
        else { return nil }
        let code = mac(of: parts[0 ..< 4].joined(separator: "."), signer: signer)
        guard code == SymmetricKey(data: sent), let time = Int64(parts[3]), let name = Base64URL.decode(parts[2]), let user = String(validating: name, as: UTF8.self)
        else { return nil }
        return (session(id: parts[1], user: user, beganMilliseconds: time), code)
    }

    /// A cookie value's part before its MAC (with the dot) and its MAC as written (``macBytes``
    /// bytes in base64url, not decoded); `nil` when the value does not end in a MAC.
    static func split(_ value: UnsafeBufferPointer<UInt8>) -> (body: UnsafeBufferPointer<UInt8>, mac: UnsafeRawBufferPointer)? {
        guard value.count > macCharacters, value[value.count - macCharacters - 1] == UInt8(ascii: ".") else { return nil }
        let split = value.count - macCharacters
        return (UnsafeBufferPointer(rebasing: value[..<split]), UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: value[split...])))
    }

    /// Whether `text` is the base64url of `code` (a MAC ``mac(of:signer:)`` made), compared in
    /// constant time by swift-crypto. The text is decoded onto the stack; as base64url has one
    /// spelling per value (``Base64URL``), no other text passes.
    static func spells(_ text: UnsafeRawBufferPointer, _ code: SymmetricKey) -> Bool {
        withUnsafeTemporaryAllocation(byteCount: macBytes, alignment: 8) { mac in
            guard text.count == macCharacters, Base64URL.decode(UnsafeBufferPointer(start: text.baseAddress?.assumingMemoryBound(to: UInt8.self), count: text.count), into: mac)
            else { return false }
            return code == SymmetricKey(data: UnsafeRawBufferPointer(mac))
        }
    }

    /// The length of a session id in base64url.
    private static let idCharacters = 15

    /// The `Set-Cookie` value that stores `value` (or, with `nil`, removes the cookie).
    static func setCookie(_ value: String?, secure: Bool) -> String {
        let tail = "; Path=/; HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "")
        guard let value else { return "\(name)=; Max-Age=0" + tail }
        return "\(name)=\(value); Max-Age=\(Int(lifetime))" + tail
    }

    static func hex(_ bytes: [UInt8]) -> String { CSRFTokens.hex(bytes) }
}
