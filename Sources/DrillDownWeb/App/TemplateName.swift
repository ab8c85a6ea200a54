import Foundation

/// A name a template looks up (`{{title}}`), as a number: ``PageTemplates`` resolves its
/// templates' names once, when it compiles them, and a ``TemplateContext`` is keyed by the same
/// numbers, so a lookup while rendering compares integers instead of hashing strings.
///
/// Names are numbered in the order they are first met, process-wide; the names the pages' code
/// sets are static members (`.title`), each numbered once.
///
/// ```swift
/// var c = TemplateContext()
/// c[.title] = .text("Music")
/// ```
struct TemplateName: Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    let id: Int

    init(_ name: String) { id = Self.table.id(of: name) }

    init(stringLiteral name: String) { self.init(name) }

    /// The name numbered `id` (one given before).
    init(id: Int) { self.id = id }

    /// The name as written in the template.
    var description: String { Self.table.name(of: id) }

    /// `{{.}}`: the current context itself.
    static let dot = TemplateName(".")

    /// The numbers given so far, by name.
    private final class Table: @unchecked Sendable {
        private let lock = NSLock()
        private var ids: [String: Int] = [:]
        private var names: [String] = []

        func id(of name: String) -> Int {
            lock.lock()
            defer { lock.unlock() }
            if let id = ids[name] { return id }
            ids[name] = names.count
            names.append(name)
            return names.count - 1
        }

        func name(of id: Int) -> String {
            lock.lock()
            defer { lock.unlock() }
            return names[id]
        }
    }

    private static let table = Table()
}

/// The names the chrome and the level page set (those of `layout.mustache` and `level.mustache`).
extension TemplateName {
    static let account: TemplateName = "account"
    static let addAction: TemplateName = "addAction"
    static let addFieldsHTML: TemplateName = "addFieldsHTML"
    static let addHref: TemplateName = "addHref"
    static let api: TemplateName = "api"
    static let back: TemplateName = "back"
    static let columns: TemplateName = "columns"
    static let csrf: TemplateName = "csrf"
    static let csvHref: TemplateName = "csvHref"
    static let currentSection: TemplateName = "currentSection"
    static let disabled: TemplateName = "disabled"
    static let doneHref: TemplateName = "doneHref"
    static let editable: TemplateName = "editable"
    static let editing: TemplateName = "editing"
    static let editBar: TemplateName = "editBar"
    static let editHref: TemplateName = "editHref"
    static let empty: TemplateName = "empty"
    static let facetHTML: TemplateName = "facetHTML"
    static let fieldsBar: TemplateName = "fieldsBar"
    static let filterHTML: TemplateName = "filterHTML"
    static let from: TemplateName = "from"
    static let goExample: TemplateName = "goExample"
    static let history: TemplateName = "history"
    static let historyLink: TemplateName = "historyLink"
    static let href: TemplateName = "href"
    static let isColumns: TemplateName = "isColumns"
    static let isEditing: TemplateName = "isEditing"
    static let isList: TemplateName = "isList"
    static let isOutline: TemplateName = "isOutline"
    static let jumpHTML: TemplateName = "jumpHTML"
    static let label: TemplateName = "label"
    static let level: TemplateName = "level"
    static let levels: TemplateName = "levels"
    static let list: TemplateName = "list"
    static let live: TemplateName = "live"
    static let modes: TemplateName = "modes"
    static let name: TemplateName = "name"
    static let next: TemplateName = "next"
    static let notice: TemplateName = "notice"
    static let offset: TemplateName = "offset"
    static let opmlHref: TemplateName = "opmlHref"
    static let outline: TemplateName = "outline"
    static let pager: TemplateName = "pager"
    static let path: TemplateName = "path"
    static let pathbar: TemplateName = "pathbar"
    static let presence: TemplateName = "presence"
    static let prev: TemplateName = "prev"
    static let query: TemplateName = "query"
    static let redo: TemplateName = "redo"
    static let reorderHelp: TemplateName = "reorderHelp"
    static let revision: TemplateName = "revision"
    static let rowsHTML: TemplateName = "rowsHTML"
    static let rowTemplateHTML: TemplateName = "rowTemplateHTML"
    static let screen: TemplateName = "screen"
    static let searchFrom: TemplateName = "searchFrom"
    static let searchScope: TemplateName = "searchScope"
    static let searchScreen: TemplateName = "searchScreen"
    static let sectioned: TemplateName = "sectioned"
    static let sectionsJSON: TemplateName = "sectionsJSON"
    static let siteTitle: TemplateName = "siteTitle"
    static let sortHTML: TemplateName = "sortHTML"
    static let title: TemplateName = "title"
    static let titlePath: TemplateName = "titlePath"
    static let titles: TemplateName = "titles"
    static let to: TemplateName = "to"
    static let total: TemplateName = "total"
    static let treePath: TemplateName = "treePath"
    static let undo: TemplateName = "undo"
    static let undoBar: TemplateName = "undoBar"
    static let version: TemplateName = "version"
    static let virtual: TemplateName = "virtual"
}
