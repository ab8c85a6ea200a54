import Crypto
import DrillDownCore
import Foundation
import HummingbirdBcrypt
import Yams

/// The accounts of a server (`serve --users users.yaml`): users with their role and bcrypt
/// password hash, API tokens (only their SHA-256 is kept), grants of roles on subtrees, and the
/// sessions ended before they expire (the file is what every instance shares, so a sign-out
/// recorded here holds on all of them).
///
/// ```yaml
/// users:
///   - { name: ana, role: viewer, password: "$2b$10$…", sessionsFrom: "2026-11-28T14:00:00.250Z" }
/// tokens:
///   - { id: 3f9a1c2b, user: ana, hash: "…", created: "2026-11-28T02:00:00Z", expires: "2026-12-28T02:00:00Z" }
/// grants:
///   - { user: ana, path: "Rock", role: editor }
/// signedOut:
///   - { session: "…", expires: "2026-11-28T20:00:00Z" }
/// ```
public struct UsersFile: Sendable, Equatable, Codable {
    /// One account.
    public struct User: Sendable, Equatable, Codable {
        /// The name people sign in with.
        public var name: String
        /// The role on the whole data set.
        public var role: Role
        /// The bcrypt hash of the password.
        public var password: String
        /// Sessions of this user begun before this time (ISO 8601) are ended: set by a password
        /// change, `drilldown user signout` and "Sign out everywhere". `nil`: none ended so.
        public var sessionsFrom: String?
    }

    /// A session signed out before it expired (`POST /signout`): its cookie is refused until then.
    public struct SignedOutSession: Sendable, Equatable, Codable {
        /// The SHA-256 of the session id, in hex.
        public var session: String
        /// When the session would have expired anyway (ISO 8601): after that the entry is dropped.
        public var expires: String
    }

    /// One API token: `ddt_ID_SECRET`, of which only the SHA-256 is kept.
    public struct Token: Sendable, Equatable, Codable {
        /// The token's public part, for listing and revoking.
        public var id: String
        /// The user it acts as.
        public var user: String
        /// The SHA-256 of the whole token, in hex.
        public var hash: String
        /// When it was made (ISO 8601).
        public var created: String
        /// When it stops working (ISO 8601); `nil`: never.
        public var expires: String?
    }

    /// The accounts.
    public var users: [User] = []
    /// The API tokens.
    public var tokens: [Token] = []
    /// Roles on subtrees.
    public var grants: [Grant] = []
    /// Sessions signed out before they expire.
    public var signedOut: [SignedOutSession] = [] { didSet { signedOutIDs = Set(signedOut.map(\.session)) } }
    /// ``signedOut``'s session hashes, to look one up at once.
    private var signedOutIDs: Set<String> = []

    /// bcrypt's cost for new passwords: 2^10 rounds (about 60 ms on one core of a 2020s server).
    public static let bcryptCost: UInt8 = 10

    /// An empty file.
    public init() {}

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        users = try c.decodeIfPresent([User].self, forKey: .users) ?? []
        tokens = try c.decodeIfPresent([Token].self, forKey: .tokens) ?? []
        grants = try c.decodeIfPresent([Grant].self, forKey: .grants) ?? []
        signedOut = try c.decodeIfPresent([SignedOutSession].self, forKey: .signedOut) ?? []
        signedOutIDs = Set(signedOut.map(\.session))
    }

    /// Writes `signedOut` only when it holds something, so a file without sign-outs reads as before.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(users, forKey: .users)
        try c.encode(tokens, forKey: .tokens)
        try c.encode(grants, forKey: .grants)
        if !signedOut.isEmpty { try c.encode(signedOut, forKey: .signedOut) }
    }

    enum CodingKeys: String, CodingKey { case users, tokens, grants, signedOut }

    /// Reads `url`; a file that does not exist is empty when `missingIsEmpty`.
    /// - Throws: ``AccountsError`` naming the file and what is wrong in it.
    public static func load(_ url: URL, missingIsEmpty: Bool = false) throws -> UsersFile {
        guard FileManager.default.fileExists(atPath: url.path) else {
            if missingIsEmpty { return UsersFile() }
            throw AccountsError("\(url.path): no such users file (make one with 'drilldown user add \(url.path) NAME --role editor')")
        }
        let text: String
        do { text = try String(contentsOf: url, encoding: .utf8) } catch { throw AccountsError("\(url.path): \(error.localizedDescription)") }
        if text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { return UsersFile() }
        let file: UsersFile
        do {
            file = try YAMLDecoder().decode(UsersFile.self, from: text)
        } catch let error as DecodingError {
            throw AccountsError("\(url.path): \(Self.describe(error))")
        } catch {
            throw AccountsError("\(url.path): \(error)")
        }
        try file.validate(url.path)
        return file
    }

    /// Writes the file atomically, readable by its owner only, without the signed-out sessions
    /// that have expired by `now`. A file with no write bit (`chmod 444`) is refused, even for
    /// root: a rename would replace it though its owner made it read-only.
    /// - Throws: ``AccountsError`` naming the file and why it was not written.
    public func write(_ url: URL, now: Date = Date()) throws {
        var pruned = self
        pruned.signedOut.removeAll { Self.time($0.expires).map { $0 <= now } ?? true }
        let text = try YAMLEncoder().encode(pruned)
        let header = "# DrillDown accounts: edit with 'drilldown user' and 'drilldown token'. Passwords are bcrypt hashes, tokens SHA-256.\n"
        let data = Data((header + text).utf8)
        var info = stat()
        if stat(url.path, &info) == 0, info.st_mode & 0o222 == 0 {
            throw AccountsError("\(url.path): not written: the file is read-only (mode \(String(info.st_mode & 0o7777, radix: 8))); make it writable first (chmod u+w)")
        }
        do {
            try data.write(to: url, options: .atomic)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path)
        } catch {
            throw AccountsError("\(url.path): not written: \(error.localizedDescription)")
        }
    }

    /// Reads the file at `url`, changes it with `change` and writes it back, all under the users
    /// file's lock (``UsersFileLock``), so changes made at once by servers (sign-outs) and
    /// `drilldown user`/`token` commands are not lost. Nothing is written when `change` throws.
    @discardableResult
    public static func update<T>(_ url: URL, missingIsEmpty: Bool = false, now: Date = Date(), _ change: (inout UsersFile) throws -> T) throws -> T {
        try UsersFileLock.holding(url) {
            var file = try load(url, missingIsEmpty: missingIsEmpty)
            let result = try change(&file)
            try file.write(url, now: now)
            return result
        }
    }

    /// The rule of who may do what, for the core.
    public var policy: AccessPolicy {
        AccessPolicy(roles: Dictionary(users.map { ($0.name, $0.role) }, uniquingKeysWith: { a, _ in a }), grants: grants)
    }

    /// The account named `name`.
    public func user(_ name: String) -> User? { users.first { $0.name == name } }

    /// Adds an account with `password` (hashed with bcrypt).
    /// - Throws: when the name is not a valid user name, is taken, or the password is empty.
    public mutating func addUser(_ name: String, role: Role, password: String) throws {
        try Self.checkName(name)
        guard user(name) == nil else { throw AccountsError("the user '\(name)' already exists (change the password with 'drilldown user passwd')") }
        users.append(User(name: name, role: role, password: try Self.hash(password)))
    }

    /// Sets a user's password, which ends every session of the user begun before `now`.
    public mutating func setPassword(of name: String, to password: String, now: Date = Date()) throws {
        guard let k = users.firstIndex(where: { $0.name == name }) else { throw AccountsError("no user named '\(name)'") }
        users[k].password = try Self.hash(password)
        users[k].sessionsFrom = Self.preciseTime(now)
    }

    /// Ends every session of `name` begun before `now` (on every instance reading this file).
    public mutating func endSessions(of name: String, now: Date = Date()) throws {
        guard let k = users.firstIndex(where: { $0.name == name }) else { throw AccountsError("no user named '\(name)'") }
        users[k].sessionsFrom = Self.preciseTime(now)
    }

    /// Records the session `id` as signed out: its cookie is refused until it `expires`.
    mutating func signOut(session id: String, expires: Date) {
        let hash = Self.sha256(id)
        guard !signedOutIDs.contains(hash) else { return }
        signedOut.append(SignedOutSession(session: hash, expires: ISO8601DateFormatter().string(from: expires)))
    }

    /// Whether `session` of `user` was ended before it expired: signed out, or begun before the
    /// user's ``User/sessionsFrom``.
    func hasEnded(_ session: SessionCookie, of user: User) -> Bool {
        if !signedOutIDs.isEmpty, signedOutIDs.contains(Self.sha256(session.id)) { return true }
        guard let from = user.sessionsFrom.flatMap(Self.time) else { return false }
        return session.began < from
    }

    /// Removes a user with its tokens and grants.
    public mutating func removeUser(_ name: String) throws {
        guard user(name) != nil else { throw AccountsError("no user named '\(name)'") }
        users.removeAll { $0.name == name }
        tokens.removeAll { $0.user == name }
        grants.removeAll { $0.user == name }
    }

    /// Makes a token for `name`, valid for `lifetime` seconds (`nil`: until revoked); returns the
    /// token itself, which is not kept: only its SHA-256 is.
    public mutating func createToken(for name: String, lifetime: TimeInterval?, now: Date = Date()) throws -> String {
        guard user(name) != nil else { throw AccountsError("no user named '\(name)'") }
        var id: String
        repeat { id = SessionCookie.hex(Self.randomBytes(4)) } while tokens.contains { $0.id == id }
        let token = "ddt_\(id)_\(SessionCookie.hex(Self.randomBytes(32)))"
        let iso = ISO8601DateFormatter()
        tokens.append(Token(
            id: id, user: name, hash: Self.sha256(token), created: iso.string(from: now),
            expires: lifetime.map { iso.string(from: now.addingTimeInterval($0)) }))
        return token
    }

    /// Revokes the token with public part `id`.
    public mutating func revokeToken(_ id: String) throws {
        guard tokens.contains(where: { $0.id == id }) else { throw AccountsError("no token with id '\(id)' (see 'drilldown token list')") }
        tokens.removeAll { $0.id == id }
    }

    /// The user whose password is `password`, or `nil`. An unknown name costs the same bcrypt
    /// work as a known one, so the answer's timing does not tell which names exist.
    public func signIn(_ name: String, password: String) -> User? {
        guard let user = user(name) else {
            _ = Bcrypt.verify(password, hash: Self.decoyHash)
            return nil
        }
        return Bcrypt.verify(password, hash: user.password) ? user : nil
    }

    /// The user a bearer token acts as, when it is one of ours and not expired.
    public func user(forToken token: String, now: Date = Date()) -> User? {
        let parts = token.split(separator: "_")
        guard parts.count == 3, parts[0] == "ddt", let entry = tokens.first(where: { $0.id == parts[1] }) else { return nil }
        // swift-crypto compares a digest with bytes in constant time.
        guard let stored = CSRFTokens.bytes(hex: entry.hash), SHA256.hash(data: Data(token.utf8)) == stored else { return nil }
        if let expires = entry.expires, let date = ISO8601DateFormatter().date(from: expires), date <= now { return nil }
        return user(entry.user)
    }

    /// A token lifetime such as `30d`, `12h`, `90m` in seconds.
    public static func lifetime(_ text: String) throws -> TimeInterval {
        let units: [Character: Double] = ["d": 86400, "h": 3600, "m": 60, "s": 1]
        guard let unit = text.last, let scale = units[unit], let n = Double(text.dropLast()), n > 0 else {
            throw AccountsError("'\(text)' is not a lifetime: use a number and d, h, m or s, such as 30d")
        }
        return n * scale
    }

    // MARK: - Helpers

    static func hash(_ password: String) throws -> String {
        guard !password.isEmpty else { throw AccountsError("the password is empty") }
        guard password.utf8.count <= 72 else { throw AccountsError("the password is longer than 72 bytes (bcrypt's limit)") }
        return Bcrypt.hash(password, cost: bcryptCost)
    }

    static func checkName(_ name: String) throws {
        let ok = !name.isEmpty && name.count <= 64 && name.unicodeScalars.allSatisfy {
            CharacterSet.alphanumerics.contains($0) || "._@-".unicodeScalars.contains($0)
        }
        guard ok else { throw AccountsError("'\(name)' is not a user name: use 1 to 64 letters, digits, '.', '_', '@' or '-'") }
    }

    /// A hash no password matches in practice, verified for unknown names.
    static let decoyHash = Bcrypt.hash(SessionCookie.hex(randomBytes(16)), cost: bcryptCost)

    /// `date` in ISO 8601 with milliseconds: when sessions are ended, to the cookie's precision.
    static func preciseTime(_ date: Date) -> String {
        // The milliseconds written by hand: the formatter's fractional seconds may truncate .123 held as .12299….
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        let seconds = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: TimeInterval(milliseconds / 1000)))
        return seconds.dropLast() + String(format: ".%03dZ", Int(milliseconds % 1000))
    }

    /// The time an ISO 8601 text names, with or without fractional seconds.
    static func time(_ text: String) -> Date? {
        if let date = ISO8601DateFormatter().date(from: text) { return date }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }

    static func sha256(_ text: String) -> String { SessionCookie.hex(Array(SHA256.hash(data: Data(text.utf8)))) }

    static func randomBytes(_ n: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0 ..< n).map { _ in UInt8.random(in: 0 ... 255, using: &generator) }
    }

    func validate(_ file: String) throws {
        var seen = Set<String>()
        for (k, user) in users.enumerated() {
            do { try Self.checkName(user.name) } catch let e as AccountsError { throw AccountsError("\(file): users[\(k)]: \(e.message)") }
            guard seen.insert(user.name).inserted else { throw AccountsError("\(file): users[\(k)]: '\(user.name)' is listed twice") }
            guard user.password.hasPrefix("$2") else { throw AccountsError("\(file): users[\(k)].password: not a bcrypt hash (set it with 'drilldown user passwd')") }
            if let from = user.sessionsFrom, Self.time(from) == nil {
                throw AccountsError("\(file): users[\(k)].sessionsFrom: '\(from)' is not an ISO 8601 time such as 2026-11-28T14:00:00Z")
            }
        }
        for (k, entry) in signedOut.enumerated() {
            guard entry.session.utf8.count == 64, CSRFTokens.bytes(hex: entry.session) != nil else {
                throw AccountsError("\(file): signedOut[\(k)].session: not the SHA-256 of a session id (64 hex digits)")
            }
            guard Self.time(entry.expires) != nil else {
                throw AccountsError("\(file): signedOut[\(k)].expires: '\(entry.expires)' is not an ISO 8601 time such as 2026-11-28T14:00:00Z")
            }
        }
        for (k, grant) in grants.enumerated() where !seen.contains(grant.user) {
            throw AccountsError("\(file): grants[\(k)].user: no user named '\(grant.user)'")
        }
    }

    static func describe(_ error: DecodingError) -> String {
        func at(_ path: [any CodingKey]) -> String {
            path.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined().drop { $0 == "." }.description
        }
        switch error {
        case .typeMismatch(_, let c), .valueNotFound(_, let c), .dataCorrupted(let c): return "\(at(c.codingPath)): \(c.debugDescription)"
        case .keyNotFound(let key, let c): return "\(at(c.codingPath)): the field '\(key.stringValue)' is missing"
        @unknown default: return "\(error)"
        }
    }
}

/// A users file or account command that cannot be done, saying why.
public struct AccountsError: Error, Sendable, Equatable, CustomStringConvertible {
    /// For people.
    public var message: String
    init(_ message: String) { self.message = message }
    public var description: String { message }
}
