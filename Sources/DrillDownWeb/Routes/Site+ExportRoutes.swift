import DrillDownCore
import DrillDownFormats
import Foundation
import Hummingbird

/// Downloads: `/export/csv/PATH` streams the level at PATH as CSV (one row per child, one column
/// per field, see ``LevelTable``), `/export/opml/PATH` the subtree at PATH as OPML 2.0; without
/// PATH, the root. Both are attachments named after the level's title (`Kind of Blue.csv`), linked
/// from the Path menu of every page, so they work without the script.
extension Site {
    func addExportRoutes(to router: Router<SiteContext>) {
        router.get("/export/csv") { request, _ in try csvResponse(Substring(""), query: Query(request.uri.query)) }
        router.get("/export/csv/**") { request, _ in try csvResponse(request.uri.path.dropFirst(12), query: Query(request.uri.query)) }
        router.get("/export/opml") { _, _ in try opmlResponse(Substring("")) }
        router.get("/export/opml/**") { request, _ in try opmlResponse(request.uri.path.dropFirst(13)) }
    }

    /// The CSV of the level at `raw`, streamed a batch of rows at a time.
    func csvResponse(_ raw: Substring, query: Query) throws -> Response {
        let id = try exportedNode(raw)
        let table = try exportedLevel(id, query: query)
        let name = Self.downloadName(source.levelTitle(of: id), extension: "csv")
        let body = ResponseBody { writer in
            var chunk: [UInt8] = []
            CSVWriter.header(of: table, into: &chunk)
            let count = table.rows.count
            var start = 0
            repeat {
                let end = min(count, start + CSVWriter.batch)
                CSVWriter.encode(rows: start ..< end, of: table, into: &chunk)
                try await writer.write(ByteBuffer(bytes: chunk))
                chunk.removeAll(keepingCapacity: true)
                start = end
            } while start < count
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: Self.attachmentHeaders(type: "text/csv; charset=utf-8; header=present", name: name), body: body)
    }

    /// The OPML of the subtree at `raw`: the rows the reader may reach, as the level pages list
    /// them (a row hidden from them is left out with everything below it).
    func opmlResponse(_ raw: Substring) throws -> Response {
        let id = try exportedNode(raw)
        let source = self.source
        var including: ((NodeID) -> Bool)?
        if let access = RequestState.current?.access, access.hidesRows {
            including = { access.mayReach(source.path(of: $0)) }
        }
        let bytes: [UInt8]
        do { bytes = try OPMLWriter.data(source, node: id, including: including) } catch { throw WebError.badRequest(error.message) }
        let name = Self.downloadName(source.levelTitle(of: id), extension: "opml")
        return Response(status: .ok, headers: Self.attachmentHeaders(type: "text/x-opml; charset=utf-8", name: name), body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// The node a download names, when the reader may reach it.
    func exportedNode(_ raw: Substring) throws -> NodeID {
        raw.isEmpty ? source.root : try NodeLookup.node(raw, in: source).id
    }

    /// The rows and columns a CSV download of level `id` holds: the rows the level page lists for
    /// this reader, in its order: none the reader may not see, and only those of the page's
    /// filters (`?where=`, which the Path menu's link carries along).
    func exportedLevel(_ id: NodeID, query: Query) throws -> LevelTable {
        let listed = try FilterBar(query).applied(to: presenter, level: id).listedIndices(of: id)
        do { return try LevelTable(source: source, schema: presenter.schema, level: id, listed: listed) } catch { throw WebError.badRequest(error.message) }
    }

    /// `Content-Disposition: attachment` with an ASCII `filename` and the exact one as `filename*`.
    static func attachmentHeaders(type: String, name: String) -> HTTPFields {
        let ascii = String(name.unicodeScalars.map { $0.isASCII && $0.value >= 0x20 && $0 != "\"" && $0 != "\\" ? Character($0) : "_" })
        let encoded = name.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? ascii
        return [
            .contentType: type, .contentDisposition: "attachment; filename=\"\(ascii)\"; filename*=UTF-8''\(encoded)",
            .cacheControl: "no-store",
        ]
    }

    /// A file name from a title: characters file systems refuse (`/ \ : * ? " < > |`, controls)
    /// become `_`, at most 100 characters, never empty.
    static func downloadName(_ title: String, extension ext: String) -> String {
        let cleaned = String(title.unicodeScalars.map { "/\\:*?\"<>|".unicodeScalars.contains($0) || $0.value < 0x20 || $0.value == 0x7F ? "_" : Character($0) })
            .trimmingCharacters(in: .whitespaces)
        let base = cleaned.isEmpty || cleaned.hasPrefix(".") ? "data" + cleaned : String(cleaned.prefix(100))
        return base + "." + ext
    }
}
