import DrillDown
import Foundation

/// What `serve` says while it reads a big file, so a long start is not a silent one: on a
/// terminal a line rewritten in place every quarter second (`Loading big.json… 1.2 GB, 40 %`
/// while the file is read in, then the seconds spent), elsewhere one line when the load starts
/// and one when it ends. Files under ``threshold`` load too fast to need either.
final class LoadingNotice: @unchecked Sendable {
    /// Files from this size on are announced.
    static let threshold = 32 << 20
    let name: String
    let size: Int
    let onTerminal: Bool
    let started = DispatchTime.now().uptimeNanoseconds
    /// The process's bytes read (`/proc/self/io` `rchar`) when the load started.
    let readBefore: Int?
    private let timer: DispatchSourceTimer?

    private init(name: String, size: Int) {
        self.name = name
        self.size = size
        onTerminal = isatty(STDERR_FILENO) != 0
        readBefore = Self.bytesRead()
        if onTerminal {
            let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "drilldown.loading"))
            timer.schedule(deadline: .now() + .milliseconds(250), repeating: .milliseconds(250))
            self.timer = timer
        } else {
            timer = nil
            FileHandle.standardError.write(Data("Loading \(name) (\(ByteCount(size).rounded))…\n".utf8))
        }
        if onTerminal { draw() }
        timer?.setEventHandler { [weak self] in self?.draw() }
        timer?.resume()
    }

    /// A notice for `path` when it is a regular file of at least ``threshold`` bytes.
    static func start(_ path: String) -> LoadingNotice? {
        guard let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber,
              size.intValue >= threshold
        else { return nil }
        return LoadingNotice(name: URL(fileURLWithPath: path).lastPathComponent, size: size.intValue)
    }

    /// The line drawn on a terminal: the size, how much of it has been read in (while it is being
    /// read with `read(2)`; a mapped file is read as it is parsed) and the seconds so far.
    func draw() {
        var text = "Loading \(name)… \(ByteCount(size).rounded)"
        // Only a read of the file itself moves the count that much (a mapped file is not counted).
        if let before = readBefore, let now = Self.bytesRead(), now - before >= size / 100, now - before < size {
            text += ", \((now - before) * 100 / size) %"
        }
        let seconds = Int(Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9)
        if seconds > 0 { text += ", \(seconds) s" }
        FileHandle.standardError.write(Data("\r\u{1B}[K\(text)".utf8))
    }

    /// Stops the line and says how long the load took.
    func finish() {
        timer?.cancel()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        let done = "Loaded \(name) (\(ByteCount(size).rounded)) in \(String(format: "%.1f", seconds)) s\n"
        FileHandle.standardError.write(Data(((onTerminal ? "\r\u{1B}[K" : "") + done).utf8))
    }

    /// Stops the line without a word (the load failed; its error follows).
    func stop() {
        timer?.cancel()
        if onTerminal { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
    }

    /// The bytes this process has read so far (`rchar` in `/proc/self/io`), where the system says.
    static func bytesRead() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/io", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("rchar:") {
            return Int(line.dropFirst(6).trimmingCharacters(in: .whitespaces))
        }
        return nil
    }
}
