import Foundation
import Logging
import Synchronization
import Testing

@testable import DrillDownWeb

/// What the handler writes, kept for the test.
private final class Lines: TextOutputStream, @unchecked Sendable {
    private let text = Mutex("")
    func write(_ string: String) { text.withLock { $0 += string } }
    var written: String { text.withLock { $0 } }
}

@Suite("Web server log handler")
struct DeferredMetadataLogHandlerTests {
    @Test("metadata set per request is written with a message, as StreamLogHandler writes it, and only then")
    func metadataWrittenWithMessages() {
        let lines = Lines()
        var logger = Logger(label: "drilldown.web") { DeferredMetadataLogHandler(label: $0, output: lines) }
        logger.logLevel = .warning
        logger[metadataKey: "hb.request.id"] = "abc123"
        logger.info("not written at warning")
        #expect(lines.written.isEmpty)
        logger.warning("slow client", metadata: ["peer": "127.0.0.1"])
        let line = lines.written
        #expect(line.contains("warning drilldown.web:") && line.contains("hb.request.id=abc123") && line.contains("peer=127.0.0.1"))
        #expect(line.hasSuffix("slow client\n"))
        // A copy's metadata is its own (a logger per request).
        var copy = logger
        copy[metadataKey: "hb.request.id"] = "def456"
        #expect(logger[metadataKey: "hb.request.id"] == "abc123" && copy[metadataKey: "hb.request.id"] == "def456")
    }
}
