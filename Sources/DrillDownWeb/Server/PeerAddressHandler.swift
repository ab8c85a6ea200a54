import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Puts the client's address (the socket peer) into every request head as `X-DrillDown-Peer`,
/// replacing any value the client sent, so handlers of a request context, which carries no
/// channel, can count what one client holds (``StreamSlots``).
///
/// An IPv6 client is named by its /64 (`2001:db8:1:2::/64`), since one host commonly has a
/// whole /64 to pick addresses from; an IPv4-mapped one (`::ffff:192.0.2.7`) by its IPv4 address.
/// Behind a reverse proxy every client is the proxy: no forwarded header is trusted.
///
/// One handler serves one connection, whose peer does not change: its name is made at the first
/// request and kept (making it on every request was 1.3 % of a cached page's instructions).
final class PeerAddressHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    /// The connection's client name, once made (`.some(nil)`: a Unix socket).
    private var name: String??

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(var head) = unwrapInboundIn(data) else {
            context.fireChannelRead(data)
            return
        }
        if name == nil { name = .some(context.channel.remoteAddress.flatMap(Self.clientName)) }
        head.headerFields[.peerAddress] = name!
        context.fireChannelRead(wrapInboundOut(.head(head)))
    }

    /// The name a client is counted under: its IPv4 address or its IPv6 /64; `nil` for a Unix socket.
    static func clientName(_ address: SocketAddress) -> String? {
        guard case .v6(let v6) = address else { return address.ipAddress }
        let bytes = withUnsafeBytes(of: v6.address.sin6_addr) { Array($0) }
        guard bytes.count == 16 else { return address.ipAddress }
        if bytes[0 ..< 10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
            return bytes[12 ..< 16].map(String.init).joined(separator: ".")
        }
        let groups = stride(from: 0, to: 8, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
        return groups.joined(separator: ":") + "::/64"
    }
}

extension HTTPField.Name {
    /// `X-DrillDown-Peer`: the client's address, set by ``PeerAddressHandler`` (never the client's own).
    /// (Made once: making a name checks and lowercases it, on every use of a computed one.)
    static let peerAddress = Self("X-DrillDown-Peer") ?? .via
}

@available(*, unavailable)
extension PeerAddressHandler: Sendable {}
