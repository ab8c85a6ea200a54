import DrillDownCore
import Foundation

/// The level screen (one reusable table view): the children of one node.
///
/// A level of up to `virtualThreshold` rows is rendered whole. A larger one renders one page of
/// `pageSize` rows from `offset`, with plain pagination links; the script turns it into a
/// virtualized list fed by `/api/level`.
/// - Complexity: O(pageSize + depth) per request, whatever the level's width.
struct LevelPage {
    let site: Site
    let id: NodeID
    let offset: Int
    /// Edit mode (`?edit=1`): rename, move and delete on every row.
    var editing = false
    /// The Sort menu's choice (`?sort=`, see ``SortMenu/choice(_:)``); `nil`: the schema's order.
    var sort: SortRule?? = nil
    /// The `?where=` filters (checked by the route with ``FilterBar/applied(to:level:)``).
    var filters = FilterBar(expressions: [])
    /// The facet panel's field (`?facet=`); `nil`: the level's first field on a small level.
    var facet: String?

    /// The presenter showing this level in the chosen order, filtered.
    var presenter: Presenter {
        let sorted = sort.map { site.presenter.sorting(id, by: $0) } ?? site.presenter
        return (try? filters.applied(to: sorted, level: id)) ?? sorted
    }

    /// Levels of at most this many rows show a facet without being asked (`?facet=`).
    static let defaultFacetRows = 5000

    func render() -> HTML {
        let source = site.source
        let presenter = presenter
        var nav = Navigator(presenter: presenter)
        nav.open(id)
        let path = source.path(of: id)
        let total = presenter.rowCount(of: id)
        let paged = total > site.options.virtualThreshold
        let start = paged ? min(offset, max(0, total - 1)) : 0
        let limit = paged ? site.options.pageSize : total
        // The number of rows shown; they are written (below) as the presenter makes them, no array kept.
        let shown = max(0, min(limit, total - start))
        let here = Links.level(path)
        let sortItem = SortMenu.queryItem(sort)
        let facetItem = facet.map { "facet=" + Query.encode($0) }
        /// `here` with `item` (and the sort, filters and facet) as its query.
        func link(_ item: String?) -> String {
            let query = ([item, sortItem] + filters.queryItems + [facetItem]).compactMap { $0 }.joined(separator: "&")
            return query.isEmpty ? here : "\(here)?\(query)"
        }
        var rowEditing: RowEditing?
        if site.isEditable {
            let csrf = RequestState.current?.csrf ?? ""
            let back = editing ? link("edit=1") : link(start > 0 ? "offset=\(start)" : nil)
            rowEditing = RowEditing(csrf: csrf, back: back, editing: editing, total: total)
            if editing {
                rowEditing?.reorderable = presenter.sortRule(of: id) == nil && !source.keepsOrder(ofChildrenOf: id)
            }
        }
        let sections = site.sections.sections(of: id, presenter: presenter, revision: RequestState.current?.revision ?? 0)
        // A virtualized level gets no header rows (its rows are placed by index); it shows the
        // current section above the list instead.
        // The rows are written straight into the page where `{{{rowsHTML}}}` stands.
        let rowSections = paged ? nil : sections
        var extra: TemplateContext = [
            .rowsHTML: .writer { out in
                var list = RowList(editing: rowEditing, sections: rowSections, offset: start)
                presenter.forEachRow(of: id, offset: start, limit: limit) { list.append($0, to: &out) }
            },
            .total: .int(total), .path: .text(path.description),
            .api: .text(FilterBar.link(path.isRoot ? "/api/level" : "/api/level/\(path)", ([sortItem].compactMap { $0 }) + filters.queryItems)),
            .offset: .int(start),
        ]
        var keep: [(name: String, value: String)] = []
        if let sort { keep.append(("sort", sort?.description ?? "none")) }
        let revision = RequestState.current?.revision ?? 0
        if total > 1, !editing {
            extra[.sortHTML] = .text(site.sortFields.menu(
                of: id, current: presenter.sortRule(of: id), here: here, hidden: filters.hiddenInputs, presenter: presenter,
                revision: revision))
        }
        if !editing, source.childCount(of: id) > 1 || !filters.expressions.isEmpty {
            if let facet { keep.append(("facet", facet)) }
            extra[.filterHTML] = .html(filters.html(here: here, keep: keep))
            let fields = site.sortFields.filterFields(of: id, presenter: presenter, revision: revision)
            let chosen = facet ?? (source.childCount(of: id) <= Self.defaultFacetRows ? fields.first(where: { !$0.isTitle && $0.editable })?.key : nil)
            let counted = chosen.flatMap { try? presenter.facet(of: id, field: $0) }
            if !fields.isEmpty {
                extra[.facetHTML] = .html(filters.facetHTML(counted, fields: fields, chosen: chosen, here: here, keep: keep))
            }
        }
        if total == 0 { extra[.empty] = .bool(true) }
        if editing, rowEditing?.reorderable == true { extra[.reorderHelp] = .bool(true) }
        if let sections { extra.merge(sectionContext(sections, paged: paged, start: start, link: link)) }
        if let rowEditing {
            extra[.editBar] = .object([
                .isEditing: .bool(editing), .editHref: .text("\(here)?edit=1"), .doneHref: .text(here), .back: .text(rowEditing.back),
                .addHref: .text("\(path.isRoot ? "/add" : "/add/\(path)")?back=\(RowHTML.percentEncoded(rowEditing.back))"),
                .addAction: .text("/edit/add/\(path)"), .csrf: .text(rowEditing.csrf),
            ])
        }
        if paged {
            let end = start + shown
            var pager: TemplateContext = [.from: .int(start + 1), .to: .int(end), .total: .int(total)]
            if start > 0 { pager[.prev] = .text(link("offset=\(max(0, start - site.options.pageSize))")) }
            if end < total { pager[.next] = .text(link("offset=\(end)")) }
            extra[.pager] = .object(pager)
            extra[.virtual] = .bool(true)
            extra[.rowTemplateHTML] = .text(RowHTML.template)
        }
        let back = nav.backLabel.map { ($0, Links.level(path.parent)) }
        let chrome = Chrome(screen: "level", title: nav.title, back: back, node: id)
        var context = chrome.context(site: site, extra: extra)
        // Download CSV of a filtered level holds what the page lists: the link carries the filters.
        if !filters.expressions.isEmpty, case .object(var pathbar)? = context[.pathbar], case .text(let csv)? = pathbar[.csvHref] {
            pathbar[.csvHref] = .text(FilterBar.link(csv, filters.queryItems))
            context[.pathbar] = .object(pathbar)
        }
        return site.assets.renderHTML("level", context, capacity: shown * 320 + 12288)
    }

    /// At most this many sections travel in a virtualized level's page for the script (their
    /// starts, to show the current section while scrolling); a level with more shows none.
    static let maxScriptSections = 5000
    /// The jump bar lists at most this many entries (an index of initials has ~27).
    static let maxJumpEntries = 100

    /// The jump bar (each index entry links to its first row: the header's anchor on a whole
    /// level, `?offset=ROW` on a paged one, which the script turns into a scroll) and, on a
    /// paged level, the section of its first row and the sections for the script. The jump bar
    /// and the JSON are the same on every page of a level: rendered once per level and revision.
    func sectionContext(_ sections: Sections, paged: Bool, start: Int, link: (String?) -> String) -> TemplateContext {
        var c: TemplateContext = [.sectioned: .bool(true)]
        let key = SectionCache.Key(level: id, presenter: presenter)
        let decoration = site.sections.decoration(of: key, revision: RequestState.current?.revision ?? 0) {
            Self.decoration(sections, paged: paged, link: link)
        }
        if !decoration.jumpHTML.isEmpty { c[.jumpHTML] = .text(decoration.jumpHTML) }
        if paged {
            if let k = sections.section(containing: start) { c[.currentSection] = .text(sections.sections[k].title) }
            if let json = decoration.sectionsJSON { c[.sectionsJSON] = .text(json) }
        }
        return c
    }

    static func decoration(_ sections: Sections, paged: Bool, link: (String?) -> String) -> SectionCache.Decoration {
        var html = ""
        if let index = sections.index, !index.isEmpty {
            html = "<nav class=\"jump-bar\" id=\"jump-bar\" aria-label=\"Section index\"><ol>"
            for entry in index.prefix(maxJumpEntries) {
                let position = sections.section(containing: entry.start) ?? 0
                let href = paged ? link(entry.start > 0 ? "offset=\(entry.start)" : nil) : "#section-\(position)"
                html += "<li><a href=\""
                RowHTML.escape(href, into: &html)
                html += "\" data-start=\"\(entry.start)\">"
                RowHTML.escape(entry.title, into: &html)
                html += "</a></li>"
            }
            html += "</ol></nav>"
        }
        var json: String?
        if paged, sections.sections.count <= maxScriptSections {
            struct Start: Encodable { var start: Int, title: String }
            let starts = sections.sections.map { Start(start: $0.start, title: $0.title) }
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys  // a stable page: Foundation's key order varies by run
            if let data = try? encoder.encode(starts) { json = String(decoding: data, as: UTF8.self) }
        }
        return .init(jumpHTML: html, sectionsJSON: json)
    }
}
