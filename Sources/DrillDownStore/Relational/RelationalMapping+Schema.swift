import DrillDownCore

extension RelationalMapping {
    /// Reads the `levels:` list of a presentation schema (YAML or JSON, already parsed); `nil`
    /// when the schema has none.
    ///
    /// Each entry is a mapping with `table` and `title` (required), and `key`, `parent`, `order`
    /// (a column, a comma-separated list or a list; `DESC` allowed), `name`, `children`, `kind`, and
    /// `defaults` (a mapping of column to the value new rows get when none is given):
    ///
    /// ```yaml
    /// levels:
    ///   - { table: artists, title: name, key: id, kind: artist }
    ///   - { table: albums, title: title, parent: artist_id, key: id, order: "year, title" }
    ///   - { table: songs, title: name, parent: album_id, order: [track], defaults: { length: 0 } }
    /// ```
    /// - Throws: ``MappingError`` with problem `.invalid` naming the entry and field at fault.
    public init?(schema tree: TreeStore, file: String = "schema") throws(MappingError) {
        let root = tree.root
        guard tree.kind(of: root) == .object, let list = tree.member(of: root, lowercasedKeys: [Array("levels".utf8)]) else {
            return nil
        }
        func invalid(_ level: Int, _ name: String, _ message: String) -> MappingError {
            MappingError(.invalid, file: file, level: level, levelName: name, table: name, message: message)
        }
        guard tree.kind(of: list) == .array, tree.childCount(of: list) > 0 else {
            throw invalid(0, "levels", "'levels' must be a non-empty list of { table, title, key, parent, order }")
        }
        var levels: [Level] = []
        for (i, entry) in tree.children(of: list).enumerated() {
            guard tree.kind(of: entry) == .object else {
                throw invalid(i + 1, "?", "expected a mapping such as { table: albums, title: title, parent: artist_id }")
            }
            func field(_ name: String) throws(MappingError) -> String? {
                guard let id = tree.member(of: entry, lowercasedKeys: [Array(name.lowercased().utf8)]) else { return nil }
                guard let value = tree.value(of: id), value.kind != .null, !value.text.isEmpty else {
                    throw invalid(i + 1, "?", "field '\(name)' must be a column or level name")
                }
                return value.text
            }
            guard let table = try field("table") else { throw invalid(i + 1, "?", "field 'table' is missing") }
            guard let title = try field("title") else {
                throw MappingError(.invalid, file: file, level: i + 1, levelName: table, table: table, message: "field 'title' (the column shown as a row's title) is missing")
            }
            var order: [String] = []
            if let id = tree.member(of: entry, lowercasedKeys: [Array("order".utf8)]) {
                let texts = tree.kind(of: id) == .array ? tree.children(of: id).compactMap { tree.value(of: $0)?.text } : [tree.value(of: id)?.text ?? ""]
                order = texts.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            }
            var defaults: [String: String] = [:]
            if let id = tree.member(of: entry, lowercasedKeys: [Array("defaults".utf8)]) {
                guard tree.kind(of: id) == .object else {
                    throw MappingError(
                        .invalid, file: file, level: i + 1, levelName: table, table: table,
                        message: "field 'defaults' must be a mapping of column to value, such as { length: 0 }")
                }
                for member in tree.children(of: id) {
                    guard let value = tree.value(of: member) else {
                        throw MappingError(
                            .invalid, file: file, level: i + 1, levelName: table, table: table, column: tree.title(of: member),
                            message: "default of column '\(tree.title(of: member))' must be a scalar value")
                    }
                    defaults[tree.title(of: member)] = value.kind == .null ? nil : value.text
                }
            }
            levels.append(Level(
                name: try field("name"), table: table, title: title, key: try field("key"), parent: try field("parent"),
                order: order, children: try field("children"), kind: try field("kind"), defaults: defaults))
        }
        self.init(levels: levels)
    }
}

import Foundation
