@testable import DrillDownWeb
import Foundation
import HTTPTypes
import NIOCore
import Testing

/// A signed-in session is recognised once per users file generation and then answered from the
/// cache, which never serves an entry to another cookie and never outlives what it depends on.
@Suite("Session cache")
struct SessionCacheTests {
    let signer = CSRFTokens(secret: Array("a secret shared by instances".utf8))

    /// An authenticator over a users file holding `names` (the file on disk is only read at start).
    func authenticator(_ names: [String]) throws -> (AccountsAuthenticator, UsersFile) {
        var file = UsersFile()
        for name in names { try file.addUser(name, role: .editor, password: "pw-\(name)") }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("users-\(UUID().uuidString).yaml")
        try file.write(url)
        let store = try AccountStore(url: url)
        try? FileManager.default.removeItem(at: url)
        let options = AccountsOptions(usersFile: url)
        return (AccountsAuthenticator(accounts: store, options: options, signer: signer, sessions: SessionCache()), file)
    }

    func headers(_ cookie: String) -> HTTPFields { [.cookie: cookie] }

    @Test("a session is checked once, then answered from the cache with its own token, and another cookie never gets its entry")
    func cachedPerCookie() throws {
        let (auth, file) = try authenticator(["ana", "bob"])
        let ana1 = "dd_auth=" + SessionCookie.new(for: "ana").value(signedWith: signer)
        let ana2 = "dd_auth=" + SessionCookie.new(for: "ana").value(signedWith: signer)
        let bob = "dd_auth=" + SessionCookie.new(for: "bob").value(signedWith: signer)
        let first = try #require(auth.session(in: headers(ana1), .init(file: file, generation: 1)))
        let again = try #require(auth.session(in: headers("other=1; " + ana1), .init(file: file, generation: 1)))
        #expect(first === again && auth.sessions.count == 1)
        #expect(first.user.name == "ana" && first.tokenField.value == first.token)
        #expect(signer.same(first.token, signer.sign(SessionCookie.csrfMessage(user: "ana", session: Self.id(first)))))
        // Another session of the same user, and another user: entries and tokens of their own.
        let second = try #require(auth.session(in: headers(ana2), .init(file: file, generation: 1)))
        let third = try #require(auth.session(in: headers(bob), .init(file: file, generation: 1)))
        #expect(second !== first && second.token != first.token && second.serial != first.serial)
        #expect(third.user.name == "bob" && third.token != first.token)
        #expect(auth.session(in: headers(ana1), .init(file: file, generation: 1)) === first)
        // A cookie one byte off the cached one is checked, refused, and not kept.
        var forged = Array(ana1.utf8)
        forged[forged.count - 1] = forged[forged.count - 1] == UInt8(ascii: "0") ? UInt8(ascii: "1") : UInt8(ascii: "0")
        #expect(auth.session(in: headers(String(decoding: forged, as: UTF8.self)), .init(file: file, generation: 1)) == nil)
        #expect(auth.sessions.count == 3)
    }

    @Test("a cached session of a user removed from the users file is refused at once; one of a user still there is checked again")
    func removedUser() throws {
        let (auth, file) = try authenticator(["ana", "bob"])
        let ana = "dd_auth=" + SessionCookie.new(for: "ana").value(signedWith: signer)
        let bob = "dd_auth=" + SessionCookie.new(for: "bob").value(signedWith: signer)
        let anaEntry = try #require(auth.session(in: headers(ana), .init(file: file, generation: 1)))
        let bobEntry = try #require(auth.session(in: headers(bob), .init(file: file, generation: 1)))
        var edited = file
        try edited.removeUser("ana")
        #expect(auth.session(in: headers(ana), .init(file: edited, generation: 2)) == nil)
        let bobAgain = try #require(auth.session(in: headers(bob), .init(file: edited, generation: 2)))
        #expect(bobAgain !== bobEntry && bobAgain.token == bobEntry.token)
        #expect(anaEntry.generation == 1)
    }

    @Test("an expired session is refused even when cached, and a signed-out cookie's entry is gone")
    func expiryAndSignOut() throws {
        let (auth, file) = try authenticator(["ana"])
        let session = SessionCookie.new(for: "ana")
        let value = session.value(signedWith: signer)
        let entry = try #require(auth.session(in: headers("dd_auth=" + value), .init(file: file, generation: 1)))
        let expires = Int(session.expires.timeIntervalSince1970)
        value.utf8.withContiguousStorageIfAvailable { bytes in
            #expect(auth.sessions.entry(bytes, generation: 1, now: expires - 1) === entry)
            #expect(auth.sessions.entry(bytes, generation: 1, now: expires) == nil)
            #expect(auth.sessions.entry(bytes, generation: 2, now: expires - 1) == nil)
            auth.sessions.remove(bytes)
            #expect(auth.sessions.entry(bytes, generation: 1, now: expires - 1) == nil)
        }
        #expect(auth.sessions.count == 0)
        // A session that ended is refused at its first request too, and not kept.
        let old = SessionCookie.new(for: "ana", now: Date().addingTimeInterval(-SessionCookie.lifetime - 1)).value(signedWith: signer)
        #expect(auth.session(in: headers("dd_auth=" + old), .init(file: file, generation: 1)) == nil)
        #expect(auth.sessions.count == 0)
    }

    @Test("a cached page is answered to a session with its own token, and its copy for one session never to another")
    func pagePerSession() {
        let cache = PageCache()
        let html = HTML("<p>\(cache.placeholder)</p>")
        let key = PageCache.Key(path: "/", offset: 0, editing: false, user: "ana")
        let tokenA = String(repeating: "a", count: 64), tokenB = String(repeating: "b", count: 64)
        _ = cache.keep(html, key, revision: 1, token: tokenA)
        for _ in 0 ..< 2 {
            #expect(cache.page(key, revision: 1, token: tokenA, serial: 1).map { String(buffer: $0) } == "<p>\(tokenA)</p>")
            #expect(cache.page(key, revision: 1, token: tokenB, serial: 2).map { String(buffer: $0) } == "<p>\(tokenB)</p>")
        }
        #expect(cache.page(key, revision: 1, token: tokenB, serial: 2).map { String(buffer: $0) } == "<p>\(tokenB)</p>")
        #expect(cache.page(key, revision: 1, token: tokenA, serial: 1).map { String(buffer: $0) } == "<p>\(tokenA)</p>")
        #expect(cache.page(key, revision: 2, token: tokenA, serial: 1) == nil)
    }

    static func id(_ entry: SessionCache.Entry) -> String {
        guard case .session(let id) = entry.user.means else { return "" }
        return id
    }
}
