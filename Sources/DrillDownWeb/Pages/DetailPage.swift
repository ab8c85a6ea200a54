import DrillDownCore

/// The detail screen of one node: title, image, every attribute formatted by its template,
/// the leaf's value, and the path as breadcrumbs.
struct DetailPage {
    let site: Site
    let id: NodeID

    func render() -> String {
        let source = site.source
        var nav = Navigator(presenter: site.presenter)
        nav.open(id, detail: true)
        let detail = site.presenter.detail(of: id)
        let path = source.path(of: id)
        var extra: [String: Any] = [
            "heading": detail.row.title,
            "fields": detail.fields.map { ["key": $0.0, "value": $0.1] },
            "crumbs": Self.crumbs(nav),
        ]
        if !detail.row.subtitle.isEmpty { extra["subtitle"] = detail.row.subtitle }
        if let image = Links.image(detail.row.image) { extra["image"] = image }
        if let value = detail.value { extra["value"] = ["text": value.text, "kind": value.kind.description] }
        if !detail.fields.isEmpty { extra["hasFields"] = true }
        if detail.fields.isEmpty && detail.value == nil { extra["noFields"] = true }
        if detail.row.childCount > 0 {
            extra["children"] = ["count": detail.row.childCount, "href": Links.level(path)]
        }
        let back = nav.backLabel.map { ($0, Links.level(path.parent)) }
        let chrome = Chrome(screen: "detail", title: nav.title, back: back, node: id)
        return site.assets.render("detail", chrome.context(site: site, extra: extra))
    }

    /// Every screen from the root to this detail, each a link (the last is the current page).
    static func crumbs(_ nav: Navigator) -> [[String: Any]] {
        let screens = nav.stack
        return zip(screens, nav.breadcrumbs).enumerated().map { i, pair in
            let (screen, crumb) = pair
            var c: [String: Any] = ["title": crumb.title, "href": screen.isDetail ? Links.detail(crumb.path) : Links.level(crumb.path)]
            if i == screens.count - 1 { c["current"] = true }
            return c
        }
    }
}
