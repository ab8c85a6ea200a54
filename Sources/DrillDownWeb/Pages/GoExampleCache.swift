import Foundation

/// The Go to field's example path (``Chrome/goExample(in:)``), made once per data revision: it
/// reads titles two levels down and escapes them, a few microseconds that every page paid again
/// for the same text. An edit bumps the revision, so an edited title shows on the next page.
final class GoExampleCache: @unchecked Sendable {
    private let lock = NSLock()
    private var entry: (revision: Int, text: String)?

    /// The example for `revision`, made by `make` when this revision has none yet.
    func example(revision: Int, make: () -> String) -> String {
        if let hit = lock.withLock({ entry }), hit.revision == revision { return hit.text }
        let text = make()
        lock.withLock { entry = (revision, text) }
        return text
    }
}
