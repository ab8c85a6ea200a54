import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Closes connections that hold the server without asking anything of it:
/// - **idle**: no byte of a new request within `idle` after the connection opened or its last
///   response ended (an idle keep-alive socket);
/// - **header deadline**: a request whose head and body have not fully arrived within `header`
///   of its first byte (a half-sent request, or a slowloris sending a byte every few seconds:
///   the deadline does not move when bytes trickle in).
///
/// No deadline runs while a response is being produced, so `/events` streams stay open.
///
/// It sits after the HTTP decoder (it sees request and response parts) and, when added, puts a
/// small ``FirstByteWatcher`` at the front of the pipeline to learn when a request's first byte
/// arrives.
final class RequestDeadlineHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    enum State { case waiting, receiving, responding }

    let header: TimeAmount
    let idle: TimeAmount
    private var state = State.waiting
    private var timer: Scheduled<Void>?
    private var context: ChannelHandlerContext?

    init(header: TimeAmount, idle: TimeAmount) {
        self.header = header
        self.idle = idle
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        try? context.pipeline.syncOperations.addHandler(FirstByteWatcher(owner: self), position: .first)
        if context.channel.isActive { arm(idle) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        self.context = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        if state == .waiting { arm(idle) }
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        context.fireChannelInactive()
    }

    /// Bytes arrived on the socket (from ``FirstByteWatcher``).
    func bytesArrived() {
        guard state == .waiting else { return }
        state = .receiving
        arm(header)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .end = unwrapInboundIn(data) {
            state = .responding
            timer?.cancel()
            timer = nil
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data), state == .responding {
            state = .waiting
            arm(idle)
        }
        context.write(data, promise: promise)
    }

    private func arm(_ delay: TimeAmount) {
        timer?.cancel()
        guard let context else { return }
        let expected = state
        timer = context.eventLoop.assumeIsolatedUnsafeUnchecked().scheduleTask(in: delay) { [weak self] in
            guard let self, self.state == expected, let context = self.context else { return }
            self.timer = nil
            context.close(promise: nil)
        }
    }
}

/// Tells a ``RequestDeadlineHandler`` when bytes arrive, before the HTTP decoder sees them.
final class FirstByteWatcher: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private weak var owner: RequestDeadlineHandler?

    init(owner: RequestDeadlineHandler) { self.owner = owner }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        owner?.bytesArrived()
        context.fireChannelRead(data)
    }
}

@available(*, unavailable)
extension RequestDeadlineHandler: Sendable {}

@available(*, unavailable)
extension FirstByteWatcher: Sendable {}
