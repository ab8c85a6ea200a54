import Crypto
import Foundation
import HTTPTypes
import Synchronization

/// Signed-in sessions recently recognised, by their `dd_auth` cookie, with what each of their
/// requests needs made once: the user, the session's CSRF token, its `X-CSRF-Token` header field,
/// and on a read-only server the whole state of its requests. A signed-in request whose cookie is
/// here skips the cookie's MAC check, the token's HMAC and the strings both are made of (see
/// Docs/benchmarks.md).
///
/// What it keeps never outlives what the answer depends on:
/// - an entry holds for one generation of the users file (``AccountStore/loaded``): any edit of
///   the file (a user removed, a password changed, a token revoked) makes every entry stale at once,
///   and the next request of each session is checked against the file as it is now;
/// - an entry holds until its session expires;
/// - sign-out removes the entry of its cookie (``remove(_:)``), and records the session as ended in
///   the users file, whose next generation every instance's entries are stale in (an ended session
///   is refused when it is checked again: ``AccountsAuthenticator/entry(for:_:now:)``);
/// - only a cookie whose MAC was checked gets an entry, so values a client makes up cannot fill it.
///
/// A lookup finds the entry by the first 8 characters of the cookie's MAC (the HMAC the server
/// made, 128 bits no client can choose for a value of its own, in base64url, not decoded); then compares the whole MAC with
/// the entry's in constant time (swift-crypto's `SymmetricKey` `==`, the cheapest of its
/// constant-time comparisons to call with bytes: its MAC `==` with bytes is generic, and its
/// metadata lookups cost twice as much) and the rest of the cookie byte for
/// byte, so an entry is never served for another cookie and the comparison's time tells nothing
/// of a stored MAC. Bounded: emptied when it holds ``capacity`` entries.
final class SessionCache: Sendable {
    /// A recognised session and what its requests need.
    final class Entry: Sendable {
        /// The cookie's value up to its MAC (with the dot).
        let body: [UInt8]
        /// The cookie's MAC as the server wrote it, in base64url (a `SymmetricKey` for its
        /// constant-time `==`; compared as text, a request's MAC needs no decoding).
        let mac: SymmetricKey
        /// The users file's generation the user was found in.
        let generation: Int
        /// When the session ends, in Unix seconds.
        let expires: Int
        /// Who signed in, and the session's id.
        let user: SignedInUser
        /// The session's CSRF token (bound to the user and the session id).
        let token: String
        /// `X-CSRF-Token: token`, made once.
        let tokenField: HTTPField
        /// A number no other entry of this process has: what a cached page joined with this
        /// entry's token is kept under (see ``PageCache``), so no secret is compared to find it.
        let serial: Int
        /// What the session's requests of a read-only server see, made at its first request
        /// (the snapshot and the user's view of it do not change there within a generation).
        let readOnlyState = Mutex<RequestState?>(nil)

        init(body: [UInt8], mac: SymmetricKey, generation: Int, expires: Int, user: SignedInUser, token: String, serial: Int) {
            self.body = body
            self.mac = mac
            self.generation = generation
            self.expires = expires
            self.user = user
            self.token = token
            tokenField = HTTPField(name: .csrfToken, value: token)
            self.serial = serial
        }

        /// Whether this entry is the one of the cookie whose value is `body` and the MAC `mac` (as written).
        func matches(_ body: UnsafeBufferPointer<UInt8>, _ mac: UnsafeRawBufferPointer) -> Bool {
            // The MAC first, in constant time (swift-crypto's key `==`); the rest is the client's own cookie.
            guard self.mac == SymmetricKey(data: mac), body.count == self.body.count else { return false }
            return self.body.withUnsafeBytes { memcmp($0.baseAddress!, body.baseAddress!, body.count) == 0 }
        }
    }

    /// The most entries kept.
    let capacity: Int
    /// The entries by their MAC's first 8 characters (``key(_:)``), and the last serial given. (A `Mutex`, not an
    /// `NSLock`: taken on every signed-in request, and its uncontended path is a few inline
    /// instructions rather than two calls into pthreads.)
    private let state = Mutex<(entries: [UInt64: Entry], serial: Int)>(([:], 0))

    /// A cache of at most `capacity` sessions.
    init(capacity: Int = 4096) { self.capacity = capacity }

    /// The entry of the cookie value `cookie`, when it was recognised in users file generation
    /// `generation` and has not expired at `now` (Unix seconds).
    func entry(_ cookie: UnsafeBufferPointer<UInt8>, generation: Int, now: Int) -> Entry? {
        guard let (body, mac) = SessionCookie.split(cookie),
            let found = state.withLock({ $0.entries[Self.key(mac)] }), found.generation == generation, found.expires > now, found.matches(body, mac)
        else { return nil }
        return found
    }

    /// Keeps an entry for `cookie`, whose MAC is `code` (checked), recognised in `generation`; returns it.
    func keep(
        _ cookie: UnsafeBufferPointer<UInt8>, code: SymmetricKey, generation: Int, expires: Int, user: SignedInUser, token: String
    ) -> Entry? {
        guard let (body, mac) = SessionCookie.split(cookie), SessionCookie.spells(mac, code) else { return nil }
        return state.withLock { state in
            if state.entries.count >= capacity { state.entries.removeAll(keepingCapacity: true) }
            state.serial += 1
            let made = Entry(
                body: Array(body), mac: SymmetricKey(data: mac), generation: generation, expires: expires, user: user, token: token, serial: state.serial)
            state.entries[Self.key(mac)] = made
            return made
        }
    }

    /// Forgets the entry of `cookie` (sign-out).
    func remove(_ cookie: UnsafeBufferPointer<UInt8>) {
        guard let (body, mac) = SessionCookie.split(cookie) else { return }
        state.withLock { state in
            if let found = state.entries[Self.key(mac)], found.matches(body, mac) { state.entries[Self.key(mac)] = nil }
        }
    }

    /// What an entry is found by: its MAC's first 8 characters (48 of its bits), as one word.
    private static func key(_ mac: UnsafeRawBufferPointer) -> UInt64 { mac.loadUnaligned(as: UInt64.self) }

    /// How many entries are kept (tests).
    var count: Int { state.withLock { $0.entries.count } }
}
