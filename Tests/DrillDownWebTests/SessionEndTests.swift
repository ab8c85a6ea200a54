@testable import DrillDownWeb
import Foundation
import HTTPTypes
import Testing

/// Sessions that end before they expire (issue 32): signed out (the users file's `signedOut`), or
/// begun before their user's `sessionsFrom` (a password change, `drilldown user signout`, "Sign out
/// everywhere"). The users file is what every instance shares, so what it says holds on all of them.
@Suite("Ending sessions")
struct SessionEndTests {
    let signer = CSRFTokens(secret: Array("a secret shared by instances".utf8))

    func temporaryFile() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("users-\(UUID().uuidString).yaml")
    }

    /// An authenticator over a users file holding `names`, and that file.
    func authenticator(_ names: [String]) throws -> (AccountsAuthenticator, UsersFile) {
        var file = UsersFile()
        for name in names { try file.addUser(name, role: .editor, password: "pw-\(name)") }
        let url = temporaryFile()
        try file.write(url)
        let store = try AccountStore(url: url)
        try? FileManager.default.removeItem(at: url)
        return (AccountsAuthenticator(accounts: store, options: AccountsOptions(usersFile: url), signer: signer, sessions: SessionCache()), file)
    }

    func headers(_ session: SessionCookie) -> HTTPFields { [.cookie: "dd_auth=" + session.value(signedWith: signer)] }

    @Test("a signed-out session is refused from the file's next generation on, on any instance; the user's other sessions go on")
    func signedOut() throws {
        let (auth, file) = try authenticator(["ana"])
        let (other, _) = try authenticator(["ana"])   // another instance: its own cache, the same secret
        let copied = SessionCookie.new(for: "ana"), kept = SessionCookie.new(for: "ana")
        #expect(auth.session(in: headers(copied), .init(file: file, generation: 1)) != nil)
        var edited = file
        edited.signOut(session: copied.id, expires: copied.expires)
        #expect(auth.session(in: headers(copied), .init(file: edited, generation: 2)) == nil)
        #expect(other.session(in: headers(copied), .init(file: edited, generation: 1)) == nil)
        #expect(auth.session(in: headers(kept), .init(file: edited, generation: 2)) != nil)
        // The file records the id's SHA-256, not the id.
        #expect(edited.signedOut.count == 1 && edited.signedOut[0].session != copied.id && edited.signedOut[0].session.count == 64)
    }

    @Test("sessions begun before the user's sessionsFrom are refused, sessions begun after it are not, other users' are untouched")
    func sessionsFrom() throws {
        let (auth, file) = try authenticator(["ana", "bob"])
        let now = Date()
        let before = SessionCookie.new(for: "ana", now: now.addingTimeInterval(-0.002))
        let bob = SessionCookie.new(for: "bob", now: now.addingTimeInterval(-60))
        var ended = file
        try ended.endSessions(of: "ana", now: now)
        let after = SessionCookie.new(for: "ana", now: now.addingTimeInterval(0.001))
        #expect(auth.session(in: headers(before), .init(file: ended, generation: 2)) == nil)
        #expect(auth.session(in: headers(after), .init(file: ended, generation: 2)) != nil)
        #expect(auth.session(in: headers(bob), .init(file: ended, generation: 2)) != nil)
        // A password change ends the sessions too.
        var changed = file
        try changed.setPassword(of: "ana", to: "new password", now: now)
        #expect(changed.user("ana")?.sessionsFrom == ended.user("ana")?.sessionsFrom)
        #expect(auth.session(in: headers(before), .init(file: changed, generation: 3)) == nil)
        #expect(auth.session(in: headers(after), .init(file: changed, generation: 3)) != nil)
        #expect(throws: AccountsError.self) { try ended.endSessions(of: "nobody") }
    }

    @Test("the cookie holds when the session began, to the millisecond, under the MAC")
    func beganInTheCookie() throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000.1234)
        let session = SessionCookie.new(for: "ana", now: now)
        #expect(session.began.timeIntervalSince1970 == 1_800_000_000.123)
        #expect(session.expires.timeIntervalSince1970 == 1_800_000_000 + SessionCookie.lifetime)
        let value = session.value(signedWith: signer)
        #expect(value.hasPrefix("v4.") && SessionCookie.check(value, signer: signer) == session)
        // Moving the begin later (to outlive a sessionsFrom) breaks the MAC.
        var parts = value.split(separator: ".").map(String.init)
        parts[3] = String(Int64(parts[3])! + 3_600_000)
        #expect(SessionCookie.check(parts.joined(separator: "."), signer: signer) == nil)
        // So does passing it off as another version, even one signed as such.
        #expect(SessionCookie.check("v2" + value.dropFirst(2), signer: signer) == nil)
        let body = "v2" + parts[0 ..< 4].joined(separator: ".").dropFirst(2)
        #expect(SessionCookie.check(body + "." + Base64URL.encode(signer.code(SessionCookie.signed(body))), signer: signer) == nil)
    }

    @Test("the cookie is short: an 88-bit id (a small string) and a 128-bit MAC; a version 3 cookie (whole MAC) is refused")
    func shortCookie() throws {
        let session = SessionCookie.new(for: "ana")
        let value = session.value(signedWith: signer)
        let parts = value.split(separator: ".").map(String.init)
        #expect(parts.count == 5 && parts[1].count == 15 && parts[4].count == 22 && value.utf8.count == 60)
        #expect(Base64URL.decode(parts[1])?.count == 11 && Base64URL.decode(parts[4])?.count == 16)
        // The MAC is the HMAC's first half: the whole HMAC, or its second half, is refused.
        let body = parts[0 ..< 4].joined(separator: ".")
        let whole = Array(signer.code(SessionCookie.signed(body)))
        #expect(Base64URL.decode(parts[4]) == Array(whole.prefix(16)))
        #expect(SessionCookie.check(body + "." + Base64URL.encode(whole), signer: signer) == nil)
        #expect(SessionCookie.check(body + "." + Base64URL.encode(whole.suffix(16)), signer: signer) == nil)
        // A version 3 cookie, signed as version 3 signed (128-bit id, whole MAC), is refused.
        let v3 = "v3.\(Base64URL.encode(UsersFile.randomBytes(16))).\(parts[2]).\(parts[3])"
        #expect(SessionCookie.check(v3 + "." + Base64URL.encode(signer.code(SessionCookie.signed(v3))), signer: signer) == nil)
    }

    @Test("an old users file loads unchanged and is written back without the new fields")
    func oldFile() throws {
        let url = temporaryFile()
        defer { try? FileManager.default.removeItem(at: url) }
        var file = UsersFile()
        try file.addUser("ana", role: .viewer, password: "pw")
        let hash = try #require(file.user("ana")?.password)
        try "users:\n- name: ana\n  role: viewer\n  password: '\(hash)'\ntokens: []\ngrants: []\n".write(to: url, atomically: true, encoding: .utf8)
        let loaded = try UsersFile.load(url)
        #expect(loaded == file && loaded.user("ana")?.sessionsFrom == nil && loaded.signedOut.isEmpty)
        try loaded.write(url)
        let text = try String(contentsOf: url, encoding: .utf8)
        #expect(!text.contains("signedOut") && !text.contains("sessionsFrom") && text.contains("grants: []"))
    }

    @Test("signed-out sessions past their expiry are dropped whenever the file is written")
    func pruned() throws {
        let url = temporaryFile()
        defer { try? FileManager.default.removeItem(at: url) }
        var file = UsersFile()
        try file.addUser("ana", role: .viewer, password: "pw")
        let now = Date()
        file.signOut(session: "a" + String(repeating: "0", count: 31), expires: now.addingTimeInterval(-1))
        file.signOut(session: "b" + String(repeating: "0", count: 31), expires: now.addingTimeInterval(3600))
        file.signOut(session: "b" + String(repeating: "0", count: 31), expires: now.addingTimeInterval(3600))   // once only
        #expect(file.signedOut.count == 2)
        try file.endSessions(of: "ana", now: now)
        try file.write(url, now: now)
        let back = try UsersFile.load(url)
        #expect(back.signedOut == [file.signedOut[1]])
        #expect(back.user("ana")?.sessionsFrom == file.user("ana")?.sessionsFrom)
        #expect(back.user("ana")?.sessionsFrom.flatMap(UsersFile.time).map { abs($0.timeIntervalSince(now)) < 0.001 } == true)
    }

    @Test("malformed new fields are refused naming the file, the entry and the field")
    func malformed() throws {
        let url = temporaryFile()
        defer { try? FileManager.default.removeItem(at: url) }
        var file = UsersFile()
        try file.addUser("ana", role: .viewer, password: "pw")
        let hash = try #require(file.user("ana")?.password)
        let user = "users:\n  - { name: ana, role: viewer, password: '\(hash)'"
        let cases = [
            (user + ", sessionsFrom: yesterday }\n", "users[0].sessionsFrom: 'yesterday' is not an ISO 8601 time"),
            (user + " }\nsignedOut:\n  - { session: abc, expires: '2026-11-28T20:00:00Z' }\n", "signedOut[0].session: not the SHA-256"),
            (user + " }\nsignedOut:\n  - { session: '\(String(repeating: "ab", count: 32))', expires: soon }\n", "signedOut[0].expires: 'soon' is not an ISO 8601 time"),
            (user + " }\nsignedOut:\n  - { session: '\(String(repeating: "ab", count: 32))' }\n", "signedOut[0]: the field 'expires' is missing"),
        ]
        for (text, expected) in cases {
            try text.write(to: url, atomically: true, encoding: .utf8)
            let error = #expect(throws: AccountsError.self) { try UsersFile.load(url) }
            #expect(error?.message.hasPrefix(url.path + ": ") == true && error?.message.contains(expected) == true, "\(error?.message ?? "")")
        }
        try (user + ", sessionsFrom: '2026-11-28T14:00:00Z' }\n").write(to: url, atomically: true, encoding: .utf8)
        #expect(try UsersFile.load(url).user("ana")?.sessionsFrom == "2026-11-28T14:00:00Z")
    }

    @Test("changes made at once under the users file's lock are all kept; a read-only file is refused and left as it was")
    func lockedUpdates() throws {
        let url = temporaryFile()
        defer {
            try? FileManager.default.removeItem(at: url)
            try? FileManager.default.removeItem(atPath: url.path + ".lock")
        }
        var file = UsersFile()
        try file.addUser("ana", role: .viewer, password: "pw")
        try file.write(url)
        let expires = Date().addingTimeInterval(3600)
        DispatchQueue.concurrentPerform(iterations: 16) { k in
            try? UsersFile.update(url) { $0.signOut(session: String(repeating: "0", count: 30) + String(format: "%02d", k), expires: expires) }
        }
        #expect(try UsersFile.load(url).signedOut.count == 16)
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: url.path)
        let before = try Data(contentsOf: url)
        let error = #expect(throws: AccountsError.self) { try UsersFile.update(url) { try $0.endSessions(of: "ana") } }
        #expect(error?.message.contains("read-only") == true)
        #expect(try Data(contentsOf: url) == before)
    }
}
