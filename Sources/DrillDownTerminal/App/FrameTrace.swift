#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Per-frame timings for benchmarks: with `DRILLDOWN_TRACE_FRAMES=FILE`, one tab-separated line per
/// input batch: keys, microseconds to handle them, to render the frame, to diff and write it, the
/// total from input read to frame written, and the bytes written. A frame that shows background
/// search results is labelled `search:TEXT`, with the search's own duration as its handle time.
final class FrameTrace {
    private let file: UnsafeMutablePointer<FILE>

    /// Opens `path` for writing (truncating it); `nil` when it cannot be opened.
    init?(path: String) {
        guard let f = fopen(path, "w") else { return nil }
        file = f
        fputs("keys\thandle_us\trender_us\twrite_us\ttotal_us\tbytes\n", file)
    }

    /// Records one frame.
    func record(label: String, handle: UInt64, render: UInt64, write: UInt64, bytes: Int) {
        let line = "\(label)\t\(handle / 1000)\t\(render / 1000)\t\(write / 1000)\t\((handle + render + write) / 1000)\t\(bytes)\n"
        fputs(line, file)
        fflush(file)
    }

    deinit { fclose(file) }

    /// Monotonic nanoseconds.
    static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }
}
