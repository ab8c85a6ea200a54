import Crypto
import Foundation

/// CSRF tokens the server issued and can verify: each browser session gets a random id (the
/// `dd_session` cookie) and its token is the HMAC-SHA256 of that id under a secret drawn from the
/// system's random generator when the process starts (or given, to be shared by several instances). A page elsewhere can plant a cookie, but it
/// cannot compute the token that goes with it.
///
/// ```swift
/// let tokens = CSRFTokens()
/// let id = CSRFTokens.newSessionID()
/// tokens.verify(tokens.token(for: id), session: id)   // true
/// ```
struct CSRFTokens: Sendable {
    /// The cookie that holds the session id.
    static let cookieName = "dd_session"

    private let key: SymmetricKey
    /// The HMACs of recent messages (a session's CSRF token, on each of its writes).
    private let codes = Memo<(code: HashedAuthenticationCode<SHA256>, hex: String)>()

    /// Tokens under a fresh per-process secret (256 bits from the system RNG).
    init() { key = SymmetricKey(size: .bits256) }

    /// Tokens under a given secret (shared by the instances behind one proxy; tests).
    init(secret: [UInt8]) { key = SymmetricKey(data: secret) }

    /// The HMAC of `message` under the secret (remembered: see ``memoized(_:)``).
    func code(_ message: String) -> HashedAuthenticationCode<SHA256> { memoized(message).code }

    /// The HMAC of `message` under the secret, remembered (``Memo``), and its hex.
    private func memoized(_ message: String) -> (code: HashedAuthenticationCode<SHA256>, hex: String) {
        codes.value(message) {
            let code = HMAC<SHA256>.authenticationCode(for: Data(message.utf8), using: key)
            return (code, Self.hex(Array(code)))
        }!
    }

    /// A new random session id: 32 lowercase hex digits (128 bits from the system RNG).
    static func newSessionID() -> String {
        var generator = SystemRandomNumberGenerator()
        return hex((0 ..< 16).map { _ in UInt8.random(in: 0 ... 255, using: &generator) })
    }

    /// The token of the session `id`: 64 hex digits.
    func token(for id: String) -> String { sign(id) }

    /// The HMAC-SHA256 of `message` under the secret, in hex (the CSRF token of a session id, and
    /// the signature of a signed-in session's cookie, see ``SessionCookie``).
    func sign(_ message: String) -> String { memoized(message).hex }

    /// Whether `sent` is the token of session `id` (see ``isSignature(_:of:)``).
    func verify(_ sent: String, session id: String) -> Bool { isSignature(sent, of: id) }

    /// Whether `sent` (hex) is the HMAC of `message` under the secret, compared in constant time
    /// by swift-crypto (a MAC's `==` with bytes, as `HMAC.isValidAuthenticationCode` compares).
    func isSignature(_ sent: String, of message: String) -> Bool {
        guard let given = Self.bytes(hex: sent) else { return false }
        return code(message) == given
    }

    /// Whether the tokens `a` and `b` are the same, in time that tells nothing of where they
    /// differ: the HMACs of both are compared by swift-crypto, in constant time.
    func same(_ a: String, _ b: String) -> Bool {
        let code = HMAC<SHA256>.authenticationCode(for: Data(a.utf8), using: key)
        return HMAC<SHA256>.isValidAuthenticationCode(Data(code), authenticating: Data(b.utf8), using: key)
    }

    /// The bytes of a string of lowercase hex digits (as ``hex(_:)`` writes them); `nil` when it is not one.
    static func bytes(hex text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        func value(_ c: UInt8) -> UInt8? {
            switch c {
            case 48 ... 57: c - 48
            case 97 ... 102: c - 87
            default: nil
            }
        }
        var out = [UInt8]()
        out.reserveCapacity(digits.count / 2)
        var i = 0
        while i < digits.count {
            guard let hi = value(digits[i]), let lo = value(digits[i + 1]) else { return nil }
            out.append(hi << 4 | lo)
            i += 2
        }
        return out
    }

    /// The session id in a request's `Cookie` headers, when one is there and well formed.
    static func sessionID(in cookies: [String]) -> String? {
        for header in cookies {
            for part in header.split(separator: ";") {
                let pair = part.trimmingCharacters(in: .whitespaces)
                guard pair.hasPrefix(cookieName + "=") else { continue }
                let value = pair.dropFirst(cookieName.count + 1)
                if value.utf8.count == 32, value.utf8.allSatisfy({ ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }) {
                    return String(value)
                }
            }
        }
        return nil
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 15)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
