import Foundation
import Hummingbird

/// The host names this server answers to, against DNS rebinding: a page on
/// `rebind.attacker.example` whose name later resolves to 127.0.0.1 sends that name as `Host`,
/// so only names the server was started for are served.
///
/// Allowed: `127.0.0.1`, `localhost`, `[::1]`, the address the server listens on, and every extra
/// name given (`--allow-host`, for reverse proxies); each with or without a port. When the server
/// listens on every interface (`0.0.0.0`, `::`) any IP literal is allowed too: an IP address
/// cannot be rebound.
struct HostPolicy: Sendable {
    /// Lowercased host names (IPv6 without brackets).
    let names: Set<String>
    /// Whether any IP literal is allowed (the server listens on every interface).
    let allowsAnyIPLiteral: Bool

    /// The policy of a server listening on `listenHost` that also answers to `extraNames`.
    init(listenHost: String, extraNames: [String] = []) {
        var names: Set<String> = ["127.0.0.1", "localhost", "::1"]
        for name in [listenHost] + extraNames {
            let bare = Self.split(authority: name)?.host ?? name.lowercased()
            if !bare.isEmpty { names.insert(bare) }
        }
        self.names = names
        let listening = Self.split(authority: listenHost)?.host ?? listenHost
        allowsAnyIPLiteral = ["0.0.0.0", "::", ""].contains(listening)
    }

    /// Whether a request whose `Host` is `authority` may be answered. A request without a Host
    /// (HTTP/1.0, in-process tests) is allowed: browsers always send one.
    func allows(authority: String?) -> Bool {
        guard let authority else { return true }
        guard let host = Self.split(authority: authority)?.host else { return false }
        if names.contains(host) { return true }
        return allowsAnyIPLiteral && Self.isIPLiteral(host)
    }

    /// Whether `origin` (an `Origin` header) is this server itself: `http(s)://AUTHORITY` where
    /// AUTHORITY equals the request's `Host`, or names an extra allowed host (a proxy's public name).
    func isOwnOrigin(_ origin: String, requestAuthority: String?) -> Bool {
        let lower = origin.lowercased()
        let rest: Substring
        if lower.hasPrefix("http://") {
            rest = lower.dropFirst(7)
        } else if lower.hasPrefix("https://") {
            rest = lower.dropFirst(8)
        } else {
            return false  // `null` (sandboxed frames, file: pages) and other schemes
        }
        guard !rest.contains("/"), let originHost = Self.split(authority: String(rest)) else { return false }
        if let requestAuthority, let own = Self.split(authority: requestAuthority) {
            if own.host == originHost.host, own.port == originHost.port { return true }
        }
        // A reverse proxy may rewrite Host; its public name must be allowed explicitly.
        return names.contains(originHost.host) && !Self.loopbackNames.contains(originHost.host)
            && !Self.isIPLiteral(originHost.host)
    }

    /// The host a request is addressed to: a `Host` field left among the headers (in-process
    /// tests set one beside their fixed authority), else its authority (where HTTP/1 puts `Host`).
    static func authority(of request: Request) -> String? {
        request.headers.first { $0.name.canonicalName == "host" }?.value ?? request.head.authority
    }

    /// Whether every name `request` is addressed to (its authority and any `Host` field) is allowed.
    func allows(_ request: Request) -> Bool {
        let hostFields = request.headers.filter { $0.name.canonicalName == "host" }.map(\.value)
        return allows(authority: request.head.authority) && hostFields.allSatisfy { allows(authority: $0) }
    }

    static let loopbackNames: Set<String> = ["127.0.0.1", "localhost", "::1"]

    /// `host[:port]` or `[v6]:port` split into a lowercased host (brackets removed) and its port;
    /// `nil` when malformed (empty, bad port, stray characters).
    static func split(authority: String) -> (host: String, port: Int?)? {
        let text = authority.lowercased()
        guard !text.isEmpty, text.utf8.count <= 255 else { return nil }
        var host: Substring
        var portText: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            host = text[text.index(after: text.startIndex) ..< close]
            let after = text[text.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return nil }
                portText = after.dropFirst()
            }
        } else {
            let parts = text.split(separator: ":", omittingEmptySubsequences: false)
            if parts.count > 2 {
                host = text[...]  // a bare IPv6 address (only in configuration, never in a Host header)
            } else {
                host = parts[0]
                portText = parts.count == 2 ? parts[1] : nil
            }
        }
        var port: Int?
        if let portText {
            guard !portText.isEmpty, portText.count <= 5, let n = Int(portText), (0 ... 65535).contains(n) else { return nil }
            port = n
        }
        if host.hasSuffix(".") { host = host.dropLast() }  // `localhost.` is `localhost`
        let allowed = host.unicodeScalars.allSatisfy {
            ($0 >= "a" && $0 <= "z") || ($0 >= "0" && $0 <= "9") || $0 == "-" || $0 == "." || $0 == ":" || $0 == "_" || $0 == "%"
        }
        guard !host.isEmpty, allowed else { return nil }
        return (String(host), port)
    }

    /// Whether `host` is an IPv4 or IPv6 address rather than a name.
    static func isIPLiteral(_ host: String) -> Bool {
        if host.contains(":") { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(\.isASCII) && UInt8($0) != nil }
    }
}
