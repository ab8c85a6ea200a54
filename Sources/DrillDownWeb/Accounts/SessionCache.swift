import Crypto
import Foundation
import HTTPTypes

/// Signed-in sessions recently recognised, by the exact bytes of their `dd_auth` cookie's value,
/// with what each of their requests needs made once: the user, the session's CSRF token and its
/// `X-CSRF-Token` header field. A signed-in request whose cookie is here skips the cookie's
/// MAC check, the token's HMAC and the strings both are made of (see Docs/benchmarks.md).
///
/// What it keeps never outlives what the answer depends on:
/// - an entry holds for one generation of the users file (``AccountStore/snapshot``): any edit of
///   the file (a user removed, a password changed, a token revoked) makes every entry stale at once,
///   and the next request of each session is checked against the file as it is now;
/// - an entry holds until its session expires;
/// - sign-out removes the entry of its cookie (``remove(_:)``);
/// - only a cookie whose MAC was checked gets an entry, so values a client makes up cannot fill it.
///
/// A lookup finds the entry by the cookie's hash (the process's randomly seeded `Hasher`), then
/// compares the cookie with the entry's in constant time (swift-crypto's `SymmetricKey` `==`), so
/// an entry is never served for another cookie and the comparison's time tells nothing of a stored
/// cookie's bytes. Bounded: emptied when it holds ``capacity`` entries.
final class SessionCache: @unchecked Sendable {
    /// A recognised session and what its requests need.
    final class Entry: Sendable {
        /// The cookie's value, as sent (a `SymmetricKey` for its constant-time comparison).
        let cookie: SymmetricKey
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

        init(cookie: SymmetricKey, generation: Int, expires: Int, user: SignedInUser, token: String, serial: Int) {
            self.cookie = cookie
            self.generation = generation
            self.expires = expires
            self.user = user
            self.token = token
            tokenField = HTTPField(name: .csrfToken, value: token)
            self.serial = serial
        }
    }

    /// The most entries kept.
    let capacity: Int
    private let lock = NSLock()
    private var entries: [Int: Entry] = [:]
    private var serial = 0

    /// A cache of at most `capacity` sessions.
    init(capacity: Int = 4096) { self.capacity = capacity }

    /// The entry of the cookie value `cookie`, when it was recognised in users file generation
    /// `generation` and has not expired at `now` (Unix seconds).
    func entry(_ cookie: UnsafeBufferPointer<UInt8>, generation: Int, now: Int) -> Entry? {
        let key = Self.hash(cookie)
        guard let found = lock.withLock({ entries[key] }), found.generation == generation, found.expires > now,
            found.cookie == SymmetricKey(data: UnsafeRawBufferPointer(cookie))
        else { return nil }
        return found
    }

    /// Keeps an entry for `cookie`, whose MAC was checked, recognised in `generation`; returns it.
    func keep(_ cookie: UnsafeBufferPointer<UInt8>, generation: Int, expires: Int, user: SignedInUser, token: String) -> Entry {
        let key = Self.hash(cookie)
        return lock.withLock {
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            serial += 1
            let made = Entry(cookie: SymmetricKey(data: UnsafeRawBufferPointer(cookie)), generation: generation, expires: expires, user: user, token: token, serial: serial)
            entries[key] = made
            return made
        }
    }

    /// Forgets the entry of `cookie` (sign-out).
    func remove(_ cookie: UnsafeBufferPointer<UInt8>) {
        let key = Self.hash(cookie)
        let sent = SymmetricKey(data: UnsafeRawBufferPointer(cookie))
        lock.withLock {
            if let found = entries[key], found.cookie == sent { entries[key] = nil }
        }
    }

    /// How many entries are kept (tests).
    var count: Int { lock.withLock { entries.count } }

    /// The seeded hash of `bytes` (Swift's `Hasher`, seeded per process).
    private static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var hasher = Hasher()
        hasher.combine(bytes: UnsafeRawBufferPointer(bytes))
        return hasher.finalize()
    }
}
