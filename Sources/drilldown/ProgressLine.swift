import DrillDown
import Foundation

/// A one-line progress report on a terminal's standard error, rewritten in place with `\r`: what
/// is done of how much, the rate, and the time left. It is drawn at most ``interval`` apart
/// (10 times a second), and not at all when standard error is not a terminal (a pipe, a file,
/// CI), so logs stay clean.
///
/// ```swift
/// let line = ProgressLine.onTerminal(total: tree.count, noun: "nodes", verb: "written")
/// try store.write(tree, progress: line?.update)
/// line?.finish()
/// ```
final class ProgressLine: @unchecked Sendable {
    /// The least time between two drawings.
    static let interval: UInt64 = 100_000_000
    let total: Int
    let noun: String
    let verb: String
    let started = DispatchTime.now().uptimeNanoseconds
    private let lock = NSLock()
    private var drawn: UInt64 = 0
    private var complete = false
    private var shown = false

    private init(total: Int, noun: String, verb: String) {
        self.total = total
        self.noun = noun
        self.verb = verb
    }

    /// A progress line when standard error is a terminal, else `nil`.
    static func onTerminal(total: Int, noun: String, verb: String) -> ProgressLine? {
        isatty(STDERR_FILENO) != 0 ? ProgressLine(total: total, noun: noun, verb: verb) : nil
    }

    /// Says that `done` of ``total`` are done; drawn when ``interval`` has passed since the last
    /// drawing, and always when everything is done (with `then`, what comes next).
    func update(_ done: Int) {
        let now = DispatchTime.now().uptimeNanoseconds
        lock.lock()
        defer { lock.unlock() }
        guard !complete, done >= total || now - drawn >= Self.interval else { return }
        drawn = now
        complete = done >= total
        let seconds = Double(now - started) / 1e9
        let rate = seconds > 0 ? Double(done) / seconds : 0
        var line = "\(Self.grouped(done)) of \(Self.grouped(total)) \(noun) \(verb)"
        if total > 0 { line += " (\(min(100, done * 100 / total)) %)" }
        if done >= total {
            line += " in \(Self.duration(seconds))"
        } else if rate > 0 {
            line += " · \(Self.grouped(Int(rate))) \(noun)/s · ETA \(Self.duration(Double(total - done) / rate))"
        }
        Self.draw(line)
        shown = true
    }

    /// Shows `text` on the line (a phase that has no count, such as building an index).
    func say(_ text: String) {
        lock.lock()
        defer { lock.unlock() }
        Self.draw(text)
        shown = true
    }

    /// Clears the line, so what is printed next starts on a clean one.
    func finish() {
        lock.lock()
        defer { lock.unlock() }
        if shown { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
        shown = false
    }

    static func draw(_ text: String) {
        FileHandle.standardError.write(Data("\r\u{1B}[K\(text)".utf8))
    }

    /// `1234567` as `1,234,567`.
    static func grouped(_ n: Int) -> String {
        let digits = String(n)
        var out = ""
        for (i, c) in digits.enumerated() {
            if i > 0, (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return out
    }

    /// Seconds as `4 s`, `2 min 05 s`.
    static func duration(_ seconds: Double) -> String {
        let s = Int(seconds.rounded())
        return s < 60 ? "\(s) s" : "\(s / 60) min \(String(format: "%02d", s % 60)) s"
    }
}
