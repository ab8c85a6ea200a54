import DrillDownCore

/// Renders list rows straight to HTML: the hot path of every level page.
///
/// Escapes every text as Mustache's `{{ }}` does, but without a template lookup per field, so a
/// page of 100 rows costs microseconds.
/// - Complexity: O(total text length).
enum RowHTML {
    /// The `<li>` of one level row. Its pieces (``imageStart``, ``chevron``, ``appendText(_:to:)``,
    /// ``infoStart``…) are also those of ``template``, the row the script fills in for a
    /// virtualized level, so a row's look is written here only.
    static func append(_ row: Row, editing: RowEditing? = nil, to out: inout HTML) {
        let leads = Links.leadsSomewhere(row)
        let inEditMode = editing?.editing == true
        // A row that leads nowhere but holds a control (or an action it can run) is not marked
        // disabled: it is a setting (a switch, a slider), as in Settings.
        var inert = !leads && row.controls.isEmpty
        if editing != nil, case .action = row.select { inert = false }
        out.write(inEditMode ? (inert ? "<li class=\"row editing disabled\" id=\"n-" : "<li class=\"row editing\" id=\"n-")
            : (inert ? "<li class=\"row disabled\" id=\"n-" : "<li class=\"row\" id=\"n-"))
        // The path is written once and copied where it shows again (its id, data-path, link and ⓘ).
        let pathStart = out.count
        appendPath(row.path, to: &out)
        let path = pathStart ..< out.count
        out.write("\" data-path=\"")
        out.appendWritten(path)
        out.write("\">")
        if inEditMode, let editing {
            appendEditingRow(row, editing, to: &out)
            return
        }
        if leads {
            // The link of ``Links/destination(of:path:)``, written in place (a TreePath needs no escaping).
            out.write("<a class=\"cell\" href=\"")
            appendDestination(row, path: path, to: &out)
            out.write("\">")
        } else {
            out.write("<span class=\"cell\">")
        }
        appendImage(row, to: &out)
        appendText(row, to: &out)
        if !leads, editing == nil, case .action(let name) = row.select {
            out.write("<span class=\"action-badge\" title=\"Start the server with --editable to run actions\">▶ ")
            out.appendEscaped(name)
            out.write("</span>")
        }
        // Every row that opens another page (a level or a detail) ends with a chevron.
        if leads { out.write(chevron) }
        out.write(leads ? "</a>" : "</span>")
        if row.hasDetailButton {
            out.write(infoStart)
            out.appendWritten(path)
            out.write(infoLabel)
            out.appendEscaped(row.title)
            out.write(infoEnd)
        }
        if let editing { appendEditing(row, editing, to: &out) }
        out.write("</li>\n")
    }

    /// The chevron ending a row that opens another page.
    static let chevron: StaticString = "<span class=\"chevron\" aria-hidden=\"true\"></span>"
    /// The detail (ⓘ) button, in three pieces around the row's path and title.
    static let infoStart: StaticString = "<a class=\"info\" href=\"/d/"
    static let infoLabel: StaticString = "\" aria-label=\"Details of "
    static let infoEnd: StaticString = "\">i</a>"
    /// A row's thumbnail, in two pieces around its URL (app.js puts a neutral placeholder in
    /// place of one that does not load).
    static let imageStart: StaticString = "<img class=\"thumb\" src=\""
    static let imageEnd: StaticString = "\" alt=\"\" width=\"44\" height=\"44\">"

    /// The row's thumbnail, if it has one inside the data folder.
    static func appendImage(_ row: Row, to out: inout HTML) {
        guard let image = Links.image(row.image) else { return }
        out.write(imageStart)
        out.appendEscaped(image)
        out.write(imageEnd)
    }

    /// The row a virtualized level's script clones for the rows it fetches (`<template
    /// id="row-template">`): a level row with every part present and its texts empty. The script
    /// sets the path, link, image, title and subtitle, and removes the parts a row lacks.
    /// Made once: the same on every page.
    static let template: String = {
        var out = HTML(capacity: 512)
        out.write("<template id=\"row-template\"><li class=\"row\"><a class=\"cell\" href=\"\">")
        out.write(imageStart)
        out.write(imageEnd)
        out.write(textStart)
        out.write(subtitleStart)
        out.write(textEnd)
        out.write(chevron)
        out.write("</a>")
        out.write(infoStart)
        out.write(infoLabel)
        out.write(infoEnd)
        out.write("</li></template>")
        return out.description
    }()

    /// `path` in its dotted form (``TreePath/description``), digit by digit.
    static func appendPath(_ path: TreePath, to out: inout HTML) {
        for (k, i) in path.indices.enumerated() {
            if k > 0 { out.append(ascii: UInt8(ascii: ".")) }
            out.append(i)
        }
    }

    /// ``Links/destination(of:path:)`` of a row that leads somewhere.
    /// `path`, when given, is where `out` already holds the row's path.
    static func appendDestination(_ row: Row, path: Range<Int>? = nil, to out: inout HTML) {
        if case .drill = row.select, row.drills {
            if row.path.isRoot { return out.write("/") }
            out.write("/l/")
        } else {
            out.write("/d/")
        }
        if let path { out.appendWritten(path) } else { appendPath(row.path, to: &out) }
    }

    /// The `<li>` of one outline row; `toggle` is the URL that flips it (`nil` for leaves).
    ///
    /// WAI-ARIA tree pattern: the `<li>` is presentational and the row's cell (the link a click or
    /// Enter follows) is the `treeitem`, carrying `aria-level`, `aria-setsize`, `aria-posinset`,
    /// `aria-expanded` and `aria-selected`, so the element that has focus is the one a screen
    /// reader announces with its state and place even when only a window of rows exists. The
    /// disclosure triangle is a plain link for pointers and pages without script; keyboards use
    /// Right/Left on the item (app.js). In Edit mode (`select` given) the cell selects the row
    /// instead of opening it, and a drag handle (for the script, hidden from assistive technology)
    /// ends the row.
    static func appendTreeItem(
        _ row: Row, depth: Int, setSize: Int, position: Int, expanded: Bool, toggle: String?, focused: Bool,
        select: String? = nil, open: String? = nil, to out: inout HTML
    ) {
        let path = row.path.description
        let href = select ?? open ?? Links.destination(of: row)
        out += "<li class=\"row treeitem d\(min(depth, 16))"
        if href == nil { out += " disabled" }
        if focused { out += " focused" }
        out += "\" role=\"none\" id=\"n-\(path)\" data-path=\"\(path)\">"
        if let toggle {
            out += expanded ? "<a class=\"disclosure open\" href=\"" : "<a class=\"disclosure\" href=\""
            out.appendEscaped(toggle)
            out.write(disclosureEnd)
        } else {
            out.write(leafDisclosure)
        }
        var item = " role=\"treeitem\" aria-level=\"\(depth)\" aria-setsize=\"\(setSize)\" aria-posinset=\"\(position)\""
        if toggle != nil { item += expanded ? " aria-expanded=\"true\"" : " aria-expanded=\"false\"" }
        item += focused ? " aria-selected=\"true\"" : " aria-selected=\"false\""
        openCell(href, attributes: item, to: &out)
        appendText(row, to: &out)
        out += href == nil ? "</span>" : "</a>"
        if select != nil { out += dragHandle }
        out += "</li>\n"
    }

    /// The end of a tree item's disclosure link (after its URL), and a leaf's empty disclosure.
    static let disclosureEnd: StaticString = "\" tabindex=\"-1\" aria-hidden=\"true\"></a>"
    static let leafDisclosure: StaticString = "<span class=\"disclosure leaf\" aria-hidden=\"true\"></span>"

    /// The outline row the script clones for the rows it fetches (`<template
    /// id="treeitem-template">`): ``appendTreeItem(_:depth:setSize:position:expanded:toggle:focused:select:to:)``'s
    /// row with a disclosure link and a linked cell (and in Edit mode a drag handle), texts empty.
    /// The script sets the classes, path, links and ARIA state, and removes what a row lacks.
    static let treeTemplate = makeTreeTemplate(editing: false)
    static let treeEditTemplate = makeTreeTemplate(editing: true)

    static func makeTreeTemplate(editing: Bool) -> String {
        var out = HTML(capacity: 512)
        out.write("<template id=\"treeitem-template\"><li class=\"row treeitem\" role=\"none\"><a class=\"disclosure\" href=\"")
        out.write(disclosureEnd)
        out.write("<a class=\"cell\" role=\"treeitem\" tabindex=\"-1\" href=\"\">")
        out.write(textStart)
        out.write(subtitleStart)
        out.write(textEnd)
        out.write("</a>")
        if editing { out += dragHandle }
        out.write("</li></template>")
        return out.description
    }

    /// The reorder control of a row in Edit mode (the script drags by it; keyboards use
    /// Alt+arrows or Move…, so it is hidden from assistive technology).
    static let dragHandle = "<span class=\"drag-handle\" aria-hidden=\"true\" title=\"Drag to move\"></span>"

    /// Opens a row's cell: a link to `href`, or a disabled span when selecting does nothing.
    /// `attributes` (already escaped, with a leading space) go on the cell element.
    static func openCell(_ href: String?, attributes: String = "", to out: inout HTML) {
        if let href {
            out += "<a class=\"cell\""
            out += attributes
            out += " href=\""
            out.appendEscaped(href)
            out += "\">"
        } else if attributes.isEmpty {
            out += "<span class=\"cell\">"
        } else {
            out += "<span class=\"cell\" tabindex=\"-1\" aria-disabled=\"true\""
            out += attributes
            out += ">"
        }
    }

    /// A row's title and subtitle.
    static func appendText(_ row: Row, to out: inout HTML) {
        out.write(textStart)
        out.appendEscaped(row.title)
        if !row.subtitle.isEmpty {
            out.write(subtitleStart)
            out.appendEscaped(row.subtitle)
        }
        out.write(textEnd)
    }

    /// The pieces of ``appendText(_:to:)`` (and of ``template``).
    static let textStart: StaticString = "<span class=\"text\"><span class=\"row-title\">"
    static let subtitleStart: StaticString = "</span><span class=\"row-subtitle\">"
    static let textEnd: StaticString = "</span></span>"

    /// A section's header row; its id (`section-N`, N its position) is what the jump bar links to.
    static func appendHeader(_ section: Section, position: Int, to out: inout HTML) {
        out.write("<li class=\"section-header\" id=\"section-")
        out.append(position)
        out.write("\" data-start=\"")
        out.append(section.start)
        out.write("\"><h2>")
        out.appendEscaped(section.title)
        out.write("</h2></li>\n")
    }

    /// Appends `text` with `& < > " '` escaped, as Mustache's HTML escaping does.
    static func escape(_ text: String, into out: inout String) {
        var needs = false
        for b in text.utf8 where b == 38 || b == 60 || b == 62 || b == 34 || b == 39 {
            needs = true
            break
        }
        guard needs else {
            out += text
            return
        }
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(scalar)
            }
        }
    }
}
