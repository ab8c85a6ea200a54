import Foundation
import DrillDownCore

/// The URLs of the app's screens, built from TreePaths: one path, everywhere.
enum Links {
    /// The level screen of the node at `path` (`/` for the root).
    static func level(_ path: TreePath) -> String { path.isRoot ? "/" : "/l/\(path)" }
    /// The detail screen of the node at `path`.
    static func detail(_ path: TreePath) -> String { "/d/\(path)" }
    /// The columns screen showing `path`.
    static func columns(_ path: TreePath) -> String { path.isRoot ? "/columns" : "/columns/\(path)" }
    /// The outline screen with `path` revealed and focused.
    static func outline(revealing path: TreePath) -> String {
        guard !path.isRoot else { return "/outline" }
        let ancestors = (1 ..< path.depth + 1).map { TreePath(Array(path.indices.prefix($0))) }
        return "/outline?open=\(ancestors.map(\.description).joined(separator: ","))&focus=\(path)#n-\(path)"
    }
    /// Where selecting `row` leads, following its template; `nil` when selecting does nothing here
    /// (an action, which only an editable server runs, or `none`).
    static func destination(of row: Row) -> String? {
        switch row.select {
        case .drill: row.drills ? level(row.path) : detail(row.path)
        case .detail: detail(row.path)
        case .action, .none: nil
        }
    }

    /// A relative image path as a `/files/` URL, or `nil` when it points outside the data folder.
    static func image(_ relative: String?) -> String? {
        guard let relative, !relative.isEmpty, !relative.hasPrefix("/"), !relative.contains("\\"),
            !relative.contains("://"), !relative.split(separator: "/").contains(where: { $0 == ".." })
        else { return nil }
        return "/files/" + relative.split(separator: "/", omittingEmptySubsequences: false)
            .map { segment in String(segment).addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(.init(charactersIn: "/?#;"))) ?? "" }
            .joined(separator: "/")
    }
}
