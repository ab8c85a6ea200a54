import DrillDownCore
import Foundation
import HummingbirdBcrypt
import Testing
@testable import DrillDownWeb

@Suite("Users file")
struct UsersFileTests {
    func temporaryFile() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("users-\(UUID().uuidString).yaml")
    }

    @Test("a user's password is kept as a bcrypt hash that the library verifies, never in clear")
    func passwords() throws {
        var file = UsersFile()
        try file.addUser("ana", role: .editor, password: "correct horse")
        let hash = try #require(file.user("ana")?.password)
        #expect(hash.hasPrefix("$2b$10$"))
        #expect(Bcrypt.verify("correct horse", hash: hash))
        #expect(file.signIn("ana", password: "correct horse")?.name == "ana")
        #expect(file.signIn("ana", password: "wrong") == nil)
        #expect(file.signIn("nobody", password: "correct horse") == nil)
        #expect(throws: AccountsError.self) { try file.addUser("ana", role: .viewer, password: "x") }
        #expect(throws: AccountsError.self) { try file.addUser("a b", role: .viewer, password: "x") }
        #expect(throws: AccountsError.self) { try file.addUser("bo", role: .viewer, password: "") }
    }

    @Test("written and read back: users, tokens and grants, readable by the owner only, no password in clear")
    func roundTrip() throws {
        let url = temporaryFile()
        defer { try? FileManager.default.removeItem(at: url) }
        var file = UsersFile()
        try file.addUser("ana", role: .viewer, password: "secret-1")
        file.grants = [Grant(user: "ana", path: "Rock", role: .editor)]
        let token = try file.createToken(for: "ana", lifetime: 3600)
        try file.write(url)
        let text = try String(contentsOf: url, encoding: .utf8)
        #expect(!text.contains("secret-1") && !text.contains(token))
        let mode = try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)
        let back = try UsersFile.load(url)
        #expect(back == file)
        #expect(back.policy.roles == ["ana": .viewer])
        #expect(back.user(forToken: token)?.name == "ana")
    }

    @Test("a token works until it is revoked or expires; a forged one never")
    func tokens() throws {
        var file = UsersFile()
        try file.addUser("ana", role: .viewer, password: "pw")
        let now = Date()
        let token = try file.createToken(for: "ana", lifetime: 60, now: now)
        #expect(token.hasPrefix("ddt_"))
        #expect(file.user(forToken: token, now: now)?.name == "ana")
        #expect(file.user(forToken: token, now: now.addingTimeInterval(61)) == nil)
        let forged = String(token.dropLast()) + (token.hasSuffix("0") ? "1" : "0")
        #expect(file.user(forToken: forged, now: now) == nil)
        let id = String(token.split(separator: "_")[1])
        try file.revokeToken(id)
        #expect(file.user(forToken: token, now: now) == nil)
        #expect(throws: AccountsError.self) { try file.revokeToken(id) }
        #expect(try UsersFile.lifetime("30d") == 30 * 86400)
        #expect(throws: AccountsError.self) { try UsersFile.lifetime("soon") }
    }

    @Test("a malformed file is refused naming the entry and the field")
    func malformed() throws {
        let url = temporaryFile()
        defer { try? FileManager.default.removeItem(at: url) }
        try "users:\n  - { name: ana, role: owner, password: x }\n".write(to: url, atomically: true, encoding: .utf8)
        let roleError = #expect(throws: AccountsError.self) { try UsersFile.load(url) }
        #expect(roleError?.message.contains("users[0].role") == true)
        try "users:\n  - { name: ana, role: viewer, password: plain }\n".write(to: url, atomically: true, encoding: .utf8)
        let hashError = #expect(throws: AccountsError.self) { try UsersFile.load(url) }
        #expect(hashError?.message.contains("not a bcrypt hash") == true)
        #expect(throws: AccountsError.self) { try UsersFile.load(temporaryFile()) }
    }

    @Test("a session cookie verifies under the shared secret only (expiry: SessionCacheTests)")
    func sessionCookie() {
        let signer = CSRFTokens(secret: Array("a secret shared by instances".utf8))
        let session = SessionCookie.new(for: "ana")
        let value = session.value(signedWith: signer)
        #expect(SessionCookie.check(value, signer: signer) == session)
        #expect(SessionCookie.check(value, signer: CSRFTokens(secret: Array("another instance's secret".utf8))) == nil)
        let forged = value.replacingOccurrences(of: Base64URL.encode("ana".utf8), with: Base64URL.encode("bob".utf8))
        #expect(SessionCookie.check(forged, signer: signer) == nil)
    }

    @Test("failed sign-ins slow down per account and per address after five")
    func throttle() {
        let throttle = SignInThrottle()
        let now = Date()
        for _ in 0 ..< 5 { throttle.failed(account: "ana", address: "192.0.2.1", now: now) }
        #expect(throttle.wait(account: "ana", address: "198.51.100.2", now: now) == 1)
        #expect(throttle.wait(account: "bob", address: "192.0.2.1", now: now) == 1)
        #expect(throttle.wait(account: "bob", address: "198.51.100.2", now: now) == 0)
        throttle.failed(account: "ana", address: "192.0.2.1", now: now)
        #expect(throttle.wait(account: "ana", address: nil, now: now) == 2)
        #expect(throttle.wait(account: "ana", address: nil, now: now.addingTimeInterval(2)) == 0)
        throttle.succeeded(account: "ana")
        #expect(throttle.wait(account: "ana", address: nil, now: now) == 0)
    }
}
