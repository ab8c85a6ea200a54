#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Process-wide state the signal handlers need, prepared before any handler can run.
///
/// Signal handlers can only touch memory that already exists and call async-signal-safe
/// functions, so the saved settings and the restore sequence live in buffers allocated once.
enum TerminalRestore {
    nonisolated(unsafe) static var input: Int32 = 0
    nonisolated(unsafe) static var output: Int32 = 1
    nonisolated(unsafe) static var saved = UnsafeMutablePointer<termios>.allocate(capacity: 1)
    nonisolated(unsafe) static var armed: sig_atomic_t = 0
    nonisolated(unsafe) static var installed = false
    nonisolated(unsafe) static var resizePipe: (read: Int32, write: Int32) = (-1, -1)
    /// Show the cursor, re-enable line wrap, turn bracketed paste off, reset attributes, leave the alternate screen.
    nonisolated(unsafe) static let sequence: UnsafeMutableBufferPointer<UInt8> = {
        let bytes = Array("\u{1B}[0m\u{1B}[?25h\u{1B}[?7h\u{1B}[?2004l\u{1B}[?1049l".utf8)
        let buf = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: bytes.count)
        _ = buf.initialize(from: bytes)
        return buf
    }()

    static func prepare(input: Int32, output: Int32, saved: termios) {
        self.input = input
        self.output = output
        self.saved.pointee = saved
        _ = sequence
        armed = 1
    }

    /// Puts the terminal back; safe to call from a signal handler and more than once.
    static func restoreNow() {
        guard armed != 0 else { return }
        armed = 0
        _ = tcsetattr(input, TCSAFLUSH, saved)
        _ = write(output, sequence.baseAddress!, sequence.count)
    }

    static func installHandlers() {
        guard !installed else { return }
        installed = true
        var fds: [Int32] = [-1, -1]
        if pipe(&fds) == 0 {
            _ = fcntl(fds[0], F_SETFL, O_NONBLOCK)
            _ = fcntl(fds[1], F_SETFL, O_NONBLOCK)
            resizePipe = (fds[0], fds[1])
        }
        atexit { TerminalRestore.restoreNow() }
        signal(SIGWINCH) { _ in
            var byte: UInt8 = 1
            _ = write(TerminalRestore.resizePipe.write, &byte, 1)
        }
        for sig in [SIGTERM, SIGHUP, SIGINT, SIGQUIT, SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE] {
            signal(sig) { sig in
                TerminalRestore.restoreNow()
                signal(sig, SIG_DFL)
                raise(sig)
            }
        }
    }
}
