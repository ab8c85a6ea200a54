import Foundation
import Hummingbird

/// `/static/NAME`: the app's own stylesheet and script. `/files/RELATIVE`: images from the data's
/// folder, and only from there.
extension Site {
    /// Image types served from the data folder; anything else could run script on this origin.
    static let imageTypes: [String: String] = [
        "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif", "webp": "image/webp",
        "avif": "image/avif", "bmp": "image/bmp", "ico": "image/x-icon", "svg": "image/svg+xml",
    ]

    func addFileRoutes(to router: Router<SiteContext>) {
        router.get("/static/:name") { request, context in
            let name = context.parameters.get("name") ?? ""
            guard let file = assets.files[name] else { throw WebError.notFound("There is no static file '\(name)'.") }
            if request.headers[.ifNoneMatch] == file.etag {
                return Response(status: .notModified, headers: [.eTag: file.etag])
            }
            return Response(
                status: .ok,
                headers: [.contentType: file.contentType, .eTag: file.etag, .cacheControl: "public, max-age=86400"],
                body: .init(byteBuffer: file.body))
        }
        router.get("/favicon.ico") { _, _ in Response(status: .noContent, headers: [.cacheControl: "public, max-age=86400"]) }
        router.get("/files/**") { request, context in
            let (url, type) = try dataFile(String(request.uri.path.dropFirst(7)))
            var headers: HTTPFields = [.contentType: type, .cacheControl: "public, max-age=3600"]
            if type == "image/svg+xml" { headers[.contentSecurityPolicy] = "default-src 'none'; style-src 'unsafe-inline'; sandbox" }
            let body = try await FileIO().loadFile(path: url.path, context: context)
            return Response(status: .ok, headers: headers, body: body)
        }
    }

    /// The image type of a file name: from the text after its last dot, `nil` when that is not
    /// an image extension (or the name has none, or ends with a dot: `x.png.`).
    static func imageType(ofName name: Substring) -> String? {
        guard let dot = name.lastIndex(of: ".") else { return nil }
        return imageTypes[name[name.index(after: dot)...].lowercased()]
    }

    /// The file `raw` (percent-encoded, relative to the data folder) names, if it may be served,
    /// with its content type, decided from the file it resolves to (a symlink `link.png` to
    /// `notes.txt` is not an image).
    ///
    /// - Throws: ``WebError`` 403 for absolute paths, `..` segments and symlinks that leave the
    ///   folder; 404 for anything missing, hidden, not a regular file or not an image.
    func dataFile(_ raw: String) throws(WebError) -> (url: URL, contentType: String) {
        guard let folder = dataFolder else { throw .notFound("This data set has no files.") }
        guard raw.utf8.count <= 1024, let relative = raw.removingPercentEncoding, !relative.isEmpty else {
            throw .badRequest("Malformed file path.")
        }
        guard !relative.hasPrefix("/"), !relative.contains("\\"), !relative.contains("\0") else {
            throw .forbidden("Only files inside the data folder are served.")
        }
        let segments = relative.split(separator: "/", omittingEmptySubsequences: false)
        guard !segments.contains(where: { $0 == ".." }) else { throw .forbidden("Only files inside the data folder are served.") }
        guard !segments.contains(where: { $0.isEmpty || $0.hasPrefix(".") }) else { throw .notFound("No such file.") }
        guard let name = segments.last, Self.imageType(ofName: name) != nil else {
            throw .notFound("Only images are served from the data folder.")
        }
        let root = folder.resolvingSymlinksInPath().standardizedFileURL.path
        let target = folder.appendingPathComponent(relative).resolvingSymlinksInPath().standardizedFileURL
        guard target.path.hasPrefix(root.hasSuffix("/") ? root : root + "/") else {
            throw .forbidden("Only files inside the data folder are served.")
        }
        let attributes = try? FileManager.default.attributesOfItem(atPath: target.path)
        guard let kind = attributes?[.type] as? FileAttributeType, kind == .typeRegular else {
            throw .notFound("No such file: \(relative)")
        }
        guard let type = Self.imageType(ofName: Substring(target.lastPathComponent)) else {
            throw .notFound("\(relative) is not an image.")
        }
        return (target, type)
    }
}
