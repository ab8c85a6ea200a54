import DrillDownCore

/// A level's filters on the web: `?where=length>360&where=genre=Rock` (repeated: all must match),
/// shown as removable chips above the list with a field to add one, and the facet panel
/// (`?facet=FIELD`) whose values add a filter. All plain links and GET forms, so they work without
/// JavaScript and every filtered view is a URL.
struct FilterBar {
    /// The `where` expressions as sent, in order.
    var expressions: [String]

    /// The most expressions a URL may carry, and the longest one.
    static let maxExpressions = 20, maxLength = 500

    /// The `where` parameters of `query`, blank ones dropped.
    /// - Throws: ``WebError`` 400 when there are too many or one is too long.
    init(_ query: Query) throws(WebError) {
        expressions = query.all("where").filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
        guard expressions.count <= Self.maxExpressions else { throw .badRequest("at most \(Self.maxExpressions) 'where' filters") }
        if let long = expressions.first(where: { $0.count > Self.maxLength }) {
            throw .badRequest("'where' is longer than \(Self.maxLength) characters: '\(long.prefix(40))…'")
        }
    }

    init(expressions: [String]) { self.expressions = expressions }

    /// The filter all expressions make; `nil` when there are none.
    /// - Throws: ``WebError`` 400 with the expression's column when one does not parse.
    func filter() throws(WebError) -> Filter? {
        var filters: [Filter] = []
        for expression in expressions {
            do { filters.append(try Filter(expression)) } catch { throw .badRequest("'where' \(error.description)") }
        }
        return Filter.all(filters)
    }

    /// `presenter` with the level under `id` filtered.
    /// - Throws: ``WebError`` 400 for an expression that does not parse, an unknown field or a
    ///   value its field does not take.
    func applied(to presenter: Presenter, level id: NodeID) throws(WebError) -> Presenter {
        guard let filter = try filter() else { return presenter }
        do { return try presenter.filtering(id, by: filter) } catch { throw .badRequest("'where' \(error.description)") }
    }

    /// The `where=` query items, encoded.
    var queryItems: [String] { expressions.map { "where=" + Query.encode($0) } }

    /// The key a page cache tells filtered pages apart by (`nil` when unfiltered).
    var cacheKey: String? { expressions.isEmpty ? nil : expressions.joined(separator: "\u{0}") }

    /// Hidden inputs carrying the filters through another GET form (the Sort menu).
    var hiddenInputs: String {
        var html = ""
        for expression in expressions {
            html += "<input type=\"hidden\" name=\"where\" value=\""
            RowHTML.escape(expression, into: &html)
            html += "\">"
        }
        return html
    }

    /// The chips (each links to the page without it) and the field to add a filter, posting to
    /// `here` with `keep` (the sort, the facet) kept.
    func html(here: String, keep: [(name: String, value: String)]) -> HTML {
        var html = HTML(capacity: 1024)
        html += "<div class=\"filter-bar\" id=\"filter-bar\">"
        if !expressions.isEmpty {
            html += "<ul class=\"filter-chips\" id=\"filter-chips\" aria-label=\"Filters\">"
            for (i, expression) in expressions.enumerated() {
                var others = expressions
                others.remove(at: i)
                let href = Self.link(here, FilterBar(expressions: others).queryItems + keep.map { "\($0.name)=" + Query.encode($0.value) })
                html += "<li class=\"filter-chip\"><span>"
                html.appendEscaped(expression)
                html += "</span><a class=\"chip-remove\" href=\""
                html.appendEscaped(href)
                html += "\" aria-label=\"Remove filter "
                html.appendEscaped(expression)
                html += "\">×</a></li>"
            }
            html += "</ul>"
        }
        html += "<form class=\"filter-form\" id=\"filter-form\" method=\"get\" action=\""
        html.appendEscaped(here)
        html += "\">"
        html += hiddenInputs
        for (name, value) in keep {
            html += "<input type=\"hidden\" name=\"\(name)\" value=\""
            html.appendEscaped(value)
            html += "\">"
        }
        html += "<label for=\"filter-input\">Filter</label><input type=\"text\" name=\"where\" id=\"filter-input\" "
        html += "placeholder=\"year>=1970 and name~love\" autocomplete=\"off\" spellcheck=\"false\">"
        html += "<button type=\"submit\" class=\"button\">Filter</button></form></div>"
        return html
    }

    /// The facet panel: a GET form choosing the field among `fields`, then `facet`'s values, each a
    /// link that adds `field=value` to the filters. A `<details>` (open; the script closes it on
    /// phones), laid out beside the list on wide screens.
    func facetHTML(_ facet: Facet?, fields: [Field], chosen: String?, here: String, keep: [(name: String, value: String)]) -> HTML {
        var html = HTML(capacity: 4096)
        html += "<details class=\"facets\" id=\"facets\" open><summary>Facets</summary>"
        html += "<form class=\"facet-form\" method=\"get\" action=\""
        html.appendEscaped(here)
        html += "\">"
        html += hiddenInputs
        for (name, value) in keep where name != "facet" {
            html += "<input type=\"hidden\" name=\"\(name)\" value=\""
            html.appendEscaped(value)
            html += "\">"
        }
        html += "<label for=\"facet-select\">Field</label><select name=\"facet\" id=\"facet-select\">"
        for field in fields {
            html += "<option value=\""
            html.appendEscaped(field.key)
            html += field.key.lowercased() == chosen?.lowercased() ? "\" selected>" : "\">"
            html.appendEscaped(field.label)
            html += "</option>"
        }
        html += "</select><button type=\"submit\" class=\"button\">Show</button></form>"
        if let facet {
            html += "<ul class=\"facet-values\" id=\"facet-values\" aria-label=\"Values of "
            html.appendEscaped(facet.field)
            html += "\">"
            for value in facet.values {
                let added = FilterBar(expressions: expressions + [facet.filter(for: value).description])
                let href = Self.link(here, added.queryItems + keep.map { "\($0.name)=" + Query.encode($0.value) })
                html += "<li><a href=\""
                html.appendEscaped(href)
                html += "\"><span class=\"facet-value\">"
                html.appendEscaped(value.label.isEmpty ? "(empty)" : value.label)
                html += "</span> <span class=\"facet-count\">\(value.count)</span></a></li>"
            }
            html += "</ul>"
            if facet.distinct > facet.values.count {
                html += "<p class=\"facet-more\">\(facet.distinct - facet.values.count) more values</p>"
            }
        }
        html += "</details>"
        return html
    }

    /// `here` with `items` as its query.
    static func link(_ here: String, _ items: [String]) -> String { items.isEmpty ? here : here + "?" + items.joined(separator: "&") }
}
