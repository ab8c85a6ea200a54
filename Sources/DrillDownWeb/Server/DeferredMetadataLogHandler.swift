import Logging

/// The web server's log handler: swift-log's `StreamLogHandler` on standard error, handed the
/// logger's metadata only when a message is written.
///
/// `StreamLogHandler` renders its metadata to text each time the metadata changes, and Hummingbird
/// sets a request id in its logger's metadata for every request: that was about 8k instructions
/// a request, 3.6 % of a cached level page, for text that the server's `warning` level almost
/// never writes (see Docs/benchmarks.md). Messages read as they did: the same handler writes them.
struct DeferredMetadataLogHandler: LogHandler {
    private var stream: StreamLogHandler
    /// The logger's metadata, kept as values; rendered by ``log(event:)`` only.
    var metadata: Logger.Metadata = [:]

    /// A handler writing to standard error under `label`.
    init(label: String) { stream = .standardError(label: label) }

    /// A handler writing to `output` under `label` (tests).
    init(label: String, output: any TextOutputStream & Sendable) { stream = StreamLogHandler(label: label, stream: output) }

    var logLevel: Logger.Level {
        get { stream.logLevel }
        set { stream.logLevel = newValue }
    }

    var metadataProvider: Logger.MetadataProvider? {
        get { stream.metadataProvider }
        set { stream.metadataProvider = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var event = event
        event.metadata = metadata.merging(event.metadata ?? [:]) { $1 }
        stream.log(event: event)
    }
}
