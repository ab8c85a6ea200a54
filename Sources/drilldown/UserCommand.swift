import ArgumentParser
import DrillDownCore
import DrillDownWeb
import Foundation

/// `drilldown user add|list|remove|passwd|signout USERS.yaml …`: the accounts of `serve --users`.
/// Passwords are read from standard input (never the command line) and stored as bcrypt hashes.
/// Every change of the file holds its lock (`USERS.lock`), which running servers take too.
struct UserCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "user",
        abstract: "Add, list, remove users of a server's accounts file (serve --users), set their passwords, or end their sessions.",
        subcommands: [Add.self, List.self, Remove.self, Passwd.self, SignOut.self])

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Add a user; the password is read from standard input (typed without echo on a terminal).")
        @Argument(help: "The users file (made when missing).") var file: String
        @Argument(help: "The user's name: letters, digits, '.', '_', '@' or '-'.") var name: String
        @Option(name: .long, help: "viewer (reads), editor (changes), admin (changes and manages users), or none (sees only what grants give).")
        var role: String = "viewer"

        func run() throws {
            let role = try accounts { try Role(named: self.role) }
            // Read before the file is locked: a person may take their time typing it.
            let password = try readPassword()
            try updateUsersFile(file, missingIsEmpty: true) { try $0.addUser(name, role: role, password: password) }
            print("Added \(name) (\(role.rawValue)) to \(file).")
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List the users, their roles and grants, and when their sessions were last ended.")
        @Argument(help: "The users file.") var file: String

        func run() throws {
            let users = try accounts { try UsersFile.load(URL(fileURLWithPath: file)) }
            for user in users.users {
                let grants = users.grants.filter { $0.user == user.name }.map { "\($0.role.rawValue) on '\($0.path)'" }
                let ended = user.sessionsFrom.map { ["sessions ended \($0)"] } ?? []
                print(([user.name, user.role.rawValue] + (grants.isEmpty ? [] : [grants.joined(separator: ", ")]) + ended).joined(separator: "\t"))
            }
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove", abstract: "Remove a user with their tokens and grants.")
        @Argument(help: "The users file.") var file: String
        @Argument(help: "The user's name.") var name: String

        func run() throws {
            try updateUsersFile(file) { try $0.removeUser(name) }
            print("Removed \(name) from \(file).")
        }
    }

    struct Passwd: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "passwd", abstract: "Set a user's password, read from standard input; ends every session of the user.")
        @Argument(help: "The users file.") var file: String
        @Argument(help: "The user's name.") var name: String

        func run() throws {
            let users = try accounts { try UsersFile.load(URL(fileURLWithPath: file)) }
            guard users.user(name) != nil else { throw BadInput("no user named '\(name)' in \(file)") }
            let password = try readPassword()
            try updateUsersFile(file) { try $0.setPassword(of: name, to: password) }
            print("Set the password of \(name); their sessions have ended.")
        }
    }

    struct SignOut: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "signout",
            abstract: "End every session of a user, on every server reading the file (API tokens are kept: see 'token revoke').")
        @Argument(help: "The users file.") var file: String
        @Argument(help: "The user's name.") var name: String

        func run() throws {
            try updateUsersFile(file) { try $0.endSessions(of: name) }
            print("Ended every session of \(name).")
        }
    }
}

/// `drilldown token create|list|revoke USERS.yaml …`: API tokens (`Authorization: Bearer`).
struct TokenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Create, list or revoke API tokens of a server's accounts (Authorization: Bearer).",
        subcommands: [Create.self, List.self, Revoke.self])

    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "create",
            abstract: "Create a token acting as a user; it is printed once (only its SHA-256 is kept).")
        @Argument(help: "The users file.") var file: String
        @Argument(help: "The user the token acts as.") var name: String
        @Option(name: .long, help: "How long it works: 30d, 12h, 90m (default: until revoked).") var expires: String?

        func run() throws {
            let lifetime = try expires.map { text in try accounts { try UsersFile.lifetime(text) } }
            var token = ""
            try updateUsersFile(file) { token = try $0.createToken(for: name, lifetime: lifetime) }
            print(token)
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List the tokens: id, user, created, expires.")
        @Argument(help: "The users file.") var file: String

        func run() throws {
            let users = try accounts { try UsersFile.load(URL(fileURLWithPath: file)) }
            for token in users.tokens {
                print([token.id, token.user, token.created, token.expires ?? "never"].joined(separator: "\t"))
            }
        }
    }

    struct Revoke: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "revoke", abstract: "Revoke a token by its id (see 'token list'); a running server stops accepting it at once.")
        @Argument(help: "The users file.") var file: String
        @Argument(help: "The token's id.") var id: String

        func run() throws {
            try updateUsersFile(file) { try $0.revokeToken(id) }
            print("Revoked token \(id).")
        }
    }
}

/// `body`'s value, its ``AccountsError`` or ``AccessError`` turned into bad input (exit status 1).
private func accounts<T>(_ body: () throws -> T) throws -> T {
    do { return try body() } catch let error as AccountsError { throw BadInput(error.message) } catch let error as AccessError {
        throw BadInput(error.message)
    }
}

/// Reads the users file at `path`, changes it with `change` and writes it back, holding the
/// file's lock (nothing is written when `change` throws).
private func updateUsersFile(_ path: String, missingIsEmpty: Bool = false, _ change: (inout UsersFile) throws -> Void) throws {
    try accounts { try UsersFile.update(URL(fileURLWithPath: path), missingIsEmpty: missingIsEmpty, change) }
}

/// A password from standard input: typed without echo on a terminal, else its first line.
private func readPassword() throws -> String {
    let password: String?
    if isatty(0) != 0, let typed = getpass("Password: ") {
        password = String(cString: typed)
    } else {
        password = readLine(strippingNewline: true)
    }
    guard let password, !password.isEmpty else { throw BadInput("no password on standard input (e.g. printf '%s\\n' \"$PW\" | drilldown user add …)") }
    return password
}
