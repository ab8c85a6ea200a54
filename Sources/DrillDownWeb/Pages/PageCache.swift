import Foundation
import NIOCore

/// Level pages already rendered, per data revision.
///
/// A level page is a function of the data's revision, its URL's path, `offset` and `edit`, and
/// (on an editable server) the session's CSRF token. It is rendered once with a stand-in token
/// (``placeholder``: 64 random hex digits drawn when the process starts, never sent) and kept
/// split where the token goes; a later request for the same page gets the parts joined around
/// its own session's token, which costs a copy of the page's bytes instead of its rendering
/// (and no copy at all on a read-only server, whose pages carry no token). With accounts, the
/// page last joined for a signed-in session is kept too, under its session entry's serial number
/// (``SessionCache/Entry/serial``, which no other session has), so that session's next request
/// for it is answered without a copy.
///
/// A new revision empties the cache, so an edit shows on the next page; at most `maxPages`
/// pages holding `maxBytes` bytes of memory are kept, older ones being dropped first.
final class PageCache: @unchecked Sendable {
    /// What identifies a page within one revision.
    struct Key: Hashable, Sendable {
        /// The request's path as sent (`/`, `/l/0.3`).
        var path: String
        /// The `offset` parameter (0 when absent).
        var offset: Int
        /// Whether `edit=1` was asked for.
        var editing: Bool
        /// The `sort` parameter as sent (`nil` when absent).
        var sort: String? = nil
        /// The `where` parameters (``FilterBar/cacheKey``) and the `facet` parameter.
        var filter: String? = nil, facet: String? = nil
        /// With accounts, the user the page was rendered for (see `Site.makeUsers`).
        var user = ""
    }

    /// A page cut where the CSRF token goes: parts between the tokens (one part: no token).
    struct Page: Sendable {
        var parts: [ByteBuffer]
        /// The page's length.
        var bytes: Int
        /// The memory its buffer holds (its capacity: a page is written into room to spare).
        var retained = 0
        /// The page last joined for a signed-in session: that session entry's serial and the page
        /// with its token (counted in ``retained``).
        var sessionCopy: (serial: Int, page: ByteBuffer)?

        /// The page with `token` between its parts (without a copy when it has no token).
        func joined(with token: String) -> ByteBuffer {
            guard parts.count > 1 else { return parts[0] }
            var out = ByteBufferAllocator().buffer(capacity: bytes + (parts.count - 1) * token.utf8.count)
            for (i, part) in parts.enumerated() {
                if i > 0 { out.writeString(token) }
                out.writeImmutableBuffer(part)
            }
            return out
        }
    }

    /// The CSRF token pages are rendered with before they are cut: 64 hex digits like a real one.
    let placeholder: String
    private let maxPages: Int
    private let maxBytes: Int
    private let lock = NSLock()
    private var revision = 0
    private var pages: [Key: Page] = [:]
    /// Keys in the order they were added, for dropping the oldest.
    private var order: [Key] = []
    private var bytes = 0

    /// A cache of at most `maxPages` pages holding `maxBytes` bytes.
    init(maxPages: Int = 256, maxBytes: Int = 16 << 20) {
        self.maxPages = maxPages
        self.maxBytes = maxBytes
        var generator = SystemRandomNumberGenerator()
        placeholder = CSRFTokens.hex((0 ..< 32).map { _ in UInt8.random(in: 0 ... 255, using: &generator) })
    }

    /// The page `key` of `revision` with `token` in it, when it was rendered before. `serial`
    /// (of the session entry whose token `token` is) finds the page joined for that session before,
    /// and keeps this one for it.
    func page(_ key: Key, revision: Int, token: String, serial: Int? = nil) -> ByteBuffer? {
        guard let page = lock.withLock({ revision == self.revision ? pages[key] : nil }) else { return nil }
        guard let serial, page.parts.count > 1 else { return page.joined(with: token) }
        if let copy = page.sessionCopy, copy.serial == serial { return copy.page }
        let made = page.joined(with: token)
        lock.withLock {
            // Kept only while the page is, and the memory bound allows.
            guard revision == self.revision, var kept = pages[key] else { return }
            let extra = kept.sessionCopy == nil ? made.capacity : 0
            guard bytes + extra <= maxBytes else { return }
            kept.sessionCopy = (serial, made)
            kept.retained += extra
            bytes += extra
            pages[key] = kept
        }
        return made
    }

    /// Keeps `html`, rendered with ``placeholder`` as its token, as the page `key` of `revision`;
    /// returns it with `token` in place of the placeholder. A page rendered without a token (a
    /// read-only server's) says so with `tokenless`, and is kept whole without a search for it.
    func keep(_ html: HTML, _ key: Key, revision: Int, token: String, tokenless: Bool = false) -> ByteBuffer {
        let buffer = html.buffer
        var page = tokenless ? Page(parts: [buffer], bytes: html.count) : Self.cut(buffer, at: placeholder)
        page.retained = max(html.capacity, page.bytes)
        guard page.retained <= maxBytes / 8 else { return page.joined(with: token) }
        lock.withLock {
            if revision > self.revision {
                pages.removeAll()
                order.removeAll()
                bytes = 0
                self.revision = revision
            }
            guard revision == self.revision, pages[key] == nil else { return }
            while !order.isEmpty, pages.count >= maxPages || bytes + page.retained > maxBytes {
                bytes -= pages.removeValue(forKey: order.removeFirst())?.retained ?? 0
            }
            pages[key] = page
            order.append(key)
            bytes += page.retained
        }
        return page.joined(with: token)
    }

    /// `buffer` cut at every occurrence of `marker`.
    static func cut(_ buffer: ByteBuffer, at marker: String) -> Page {
        let needle = Array(marker.utf8)
        var parts: [ByteBuffer] = []
        var bytes = 0
        buffer.withUnsafeReadableBytes { raw in
            var start = 0, i = 0
            let last = raw.count - needle.count
            while i <= last {
                // The next byte equal to the marker's first (memchr), then the rest compared.
                guard let found = memchr(raw.baseAddress! + i, Int32(needle[0]), last - i + 1) else { break }
                i = raw.baseAddress!.distance(to: UnsafeRawPointer(found))
                if memcmp(raw.baseAddress! + i, needle, needle.count) == 0 {
                    parts.append(buffer.getSlice(at: buffer.readerIndex + start, length: i - start)!)
                    bytes += i - start
                    i += needle.count
                    start = i
                } else {
                    i += 1
                }
            }
            parts.append(buffer.getSlice(at: buffer.readerIndex + start, length: raw.count - start)!)
            bytes += raw.count - start
        }
        return Page(parts: parts, bytes: bytes)
    }
}
