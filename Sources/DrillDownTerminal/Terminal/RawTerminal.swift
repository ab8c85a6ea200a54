#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The controlling terminal in full-screen mode: raw input, the alternate screen, a hidden
/// cursor, and the guarantee that the user's terminal is restored on every way out.
///
/// Restoring happens on ``restore()``, at exit (`atexit`), on SIGTERM, SIGHUP, SIGINT and SIGQUIT,
/// and on crashes (SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE), after which the signal's
/// default action runs as usual. The handlers only call async-signal-safe functions (`write`,
/// `tcsetattr`, `signal`, `raise`) on buffers prepared in advance. SIGWINCH is turned into a
/// readable byte on a pipe so the event loop can poll it along with the keyboard.
///
/// There is one terminal per process; this type is a handle to it.
public final class RawTerminal {
    /// The file descriptor keys are read from.
    public let input: Int32
    /// The file descriptor frames are written to.
    public let output: Int32
    private var active = false

    /// Opens the terminal: keys from standard input when it is a terminal, else from `/dev/tty`.
    public init() throws(TerminalError) {
        output = 1
        guard isatty(output) != 0 else { throw TerminalError("standard output is not a terminal") }
        if isatty(0) != 0 {
            input = 0
        } else {
            let fd = open("/dev/tty", O_RDONLY)
            guard fd >= 0 else { throw TerminalError("cannot open /dev/tty for keyboard input") }
            input = fd
        }
    }

    /// Switches to raw mode and the alternate screen, and installs the restoring handlers.
    public func enter() throws(TerminalError) {
        guard !active else { return }
        var saved = termios()
        guard tcgetattr(input, &saved) == 0 else { throw TerminalError("cannot read the terminal's settings") }
        TerminalRestore.prepare(input: input, output: output, saved: saved)
        var raw = saved
        cfmakeraw(&raw)
        raw.c_oflag |= tcflag_t(OPOST)
        guard tcsetattr(input, TCSAFLUSH, &raw) == 0 else { throw TerminalError("cannot switch the terminal to raw mode") }
        active = true
        TerminalRestore.installHandlers()
        // Alternate screen, hidden cursor, no line wrap, bracketed paste (pasted text arrives marked, not as keys).
        write("\u{1B}[?1049h\u{1B}[?25l\u{1B}[?7l\u{1B}[?2004h\u{1B}[H\u{1B}[2J")
    }

    /// Leaves the alternate screen and restores the settings the terminal had before ``enter()``.
    public func restore() {
        guard active else { return }
        active = false
        TerminalRestore.restoreNow()
    }

    /// Stops the process as Ctrl-Z would (restoring the terminal first) and re-enters when continued.
    public func suspend() {
        restore()
        kill(0, SIGTSTP)
        try? enter()
    }

    /// The terminal's size in cells; 80×24 when it cannot be read.
    public func size() -> (width: Int, height: Int) {
        var ws = winsize()
        if ioctl(output, UInt(TIOCGWINSZ), &ws) == 0, ws.ws_col > 0, ws.ws_row > 0 {
            return (Int(ws.ws_col), Int(ws.ws_row))
        }
        return (80, 24)
    }

    /// Writes all of `text`.
    public func write(_ text: String) {
        var text = text
        text.withUTF8 { buf in
            var done = 0
            while done < buf.count {
                let n = Glibc.write(output, buf.baseAddress! + done, buf.count - done)
                if n < 0 {
                    if errno == EINTR || errno == EAGAIN { continue }
                    return
                }
                done += n
            }
        }
    }

    /// What waiting for input produced.
    public enum Input {
        /// Bytes from the keyboard.
        case bytes([UInt8])
        /// The window changed size.
        case resized
        /// Nothing arrived in time.
        case timeout
        /// The input closed (the terminal went away).
        case closed
        /// The `wake` descriptor became readable (its bytes were drained).
        case woken
    }

    /// Waits up to `milliseconds` (forever when negative) for keys, a resize, or a byte on `wake`.
    public func read(timeout milliseconds: Int32, wake: Int32 = -1) -> Input {
        var fds = [
            pollfd(fd: input, events: Int16(POLLIN), revents: 0),
            pollfd(fd: TerminalRestore.resizePipe.read, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wake, events: Int16(POLLIN), revents: 0),
        ]
        let n = poll(&fds, wake >= 0 ? 3 : 2, milliseconds)
        if n < 0 { return errno == EINTR ? .timeout : .closed }
        if n == 0 { return .timeout }
        var drain = [UInt8](repeating: 0, count: 64)
        if fds[1].revents & Int16(POLLIN) != 0 {
            _ = Glibc.read(fds[1].fd, &drain, drain.count)
            return .resized
        }
        if wake >= 0, fds[2].revents & Int16(POLLIN) != 0 {
            _ = Glibc.read(wake, &drain, drain.count)
            return .woken
        }
        if fds[0].revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
            var buf = [UInt8](repeating: 0, count: 4096)
            let got = Glibc.read(input, &buf, buf.count)
            if got <= 0 { return got < 0 && errno == EINTR ? .timeout : .closed }
            return .bytes(Array(buf[0 ..< got]))
        }
        return .timeout
    }

    deinit { restore() }
}

/// Why the terminal cannot be used.
public struct TerminalError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public var message: String
    init(_ message: String) { self.message = message }
    public var description: String { message }
}
