extension Schema {
    /// Reads a schema from a parsed YAML/JSON document.
    ///
    /// Every key must be one the schema defines (``Keys``); an unknown key is an error naming
    /// the nearest known one. Errors carry the ``SchemaError/node`` at fault, so a reader that
    /// has the file's text can add the line (`SchemaFile` in DrillDownFormats does).
    public init(tree: TreeStore, file: String = "schema") throws(SchemaError) {
        self.init()
        let root = tree.root
        guard tree.kind(of: root) == .object else {
            throw SchemaError(file: file, field: "(top level)", message: "expected a mapping with 'kinds'")
        }
        func member(_ id: NodeID, _ key: String) -> NodeID? { tree.member(of: id, lowercasedKeys: [Array(key.lowercased().utf8)]) }
        func failure(_ id: NodeID?, _ field: String, _ message: String) -> SchemaError {
            SchemaError(file: file, field: field, message: message, node: id.map { tree.path(of: $0) })
        }
        func checkKeys(_ id: NodeID, _ known: [String], _ field: String) throws(SchemaError) {
            try Schema.checkKeys(of: id, in: tree, known: known, field: field, file: file)
        }
        func text(_ id: NodeID?, _ field: String) throws(SchemaError) -> String? {
            guard let id else { return nil }
            guard let v = tree.value(of: id), v.kind != .null else {
                throw failure(id, field, "expected a text value")
            }
            return v.text
        }
        func textTemplate(_ id: NodeID?, _ field: String) throws(SchemaError) -> TextTemplate? {
            guard let s = try text(id, field) else { return nil }
            do { return try TextTemplate(s) } catch { throw failure(id, field, error.message) }
        }
        func number(_ id: NodeID?, _ field: String, _ fallback: Double) throws(SchemaError) -> Double {
            guard let s = try text(id, field) else { return fallback }
            guard let d = Double(s) else { throw failure(id, field, "expected a number, found '\(s)'") }
            return d
        }
        try checkKeys(root, Keys.topLevel, "(top level)")
        title = try text(member(root, "title"), "title")
        rootKind = try text(member(root, "root"), "root")
        if let keys = member(root, "titleKeys") {
            titleKeys = tree.children(of: keys).compactMap { tree.value(of: $0)?.text }
        }
        if let articles = member(root, "sortIgnoring") {
            let items = tree.kind(of: articles) == .array ? Array(tree.children(of: articles)) : [articles]
            for item in items {
                guard let v = tree.value(of: item), v.kind == .string, !v.text.isEmpty else {
                    throw failure(item, "sortIgnoring", "expected a list of leading words such as [\"The \", \"A \"]")
                }
                sortIgnoring.append(v.text)
            }
        }
        if let actions = member(root, "actions") {
            for action in tree.children(of: actions) {
                try checkKeys(action, Keys.action, "actions.\(tree.title(of: action))")
                var spec: [String: String] = [:]
                for field in tree.children(of: action) { spec[tree.title(of: field)] = tree.value(of: field)?.text ?? "" }
                self.actions[tree.title(of: action)] = spec
            }
        }
        if let levels = member(root, "levels"), tree.kind(of: levels) == .array {
            for (i, level) in tree.children(of: levels).enumerated() { try checkKeys(level, Keys.level, "levels[\(i)]") }
        }
        guard let kindsNode = member(root, "kinds") else { return }
        guard tree.kind(of: kindsNode) == .object else {
            throw failure(kindsNode, "kinds", "expected a mapping from kind names to templates")
        }
        for kindNode in tree.children(of: kindsNode) {
            let name = tree.title(of: kindNode)
            let f = "kinds.\(name)"
            guard tree.kind(of: kindNode) == .object else {
                throw failure(kindNode, f, "expected a mapping (title, subtitle, image, select, …)")
            }
            try checkKeys(kindNode, Keys.template, f)
            var t = Template(kind: name)
            t.title = try textTemplate(member(kindNode, "title"), f + ".title")
            t.subtitle = try textTemplate(member(kindNode, "subtitle"), f + ".subtitle")
            t.image = try textTemplate(member(kindNode, "image"), f + ".image")
            t.children = try text(member(kindNode, "children"), f + ".children")
            t.childKind = try text(member(kindNode, "childKind"), f + ".childKind")
            if let id = member(kindNode, "select"), let s = try text(id, f + ".select") {
                guard let sel = Selection(s) else {
                    throw failure(id, f + ".select",  "expected drill, detail, action:NAME or none, found '\(s)'")
                }
                t.select = sel
            }
            if let id = member(kindNode, "accessory"), let s = try text(id, f + ".accessory") {
                guard let acc = Accessory(rawValue: s.lowercased()) else {
                    throw failure(id, f + ".accessory",  "expected automatic, none or detail, found '\(s)'")
                }
                t.accessory = acc
            }
            if let id = member(kindNode, "section"), let s = try text(id, f + ".section") {
                do { t.section = try SectionRule(s) } catch { throw failure(id, f + ".section", error.message) }
            }
            if let id = member(kindNode, "sort"), let s = try text(id, f + ".sort") {
                do { t.sort = try SortRule(s) } catch { throw failure(id, f + ".sort", error.message) }
            }
            if let id = member(kindNode, "index"), let s = try text(id, f + ".index") {
                switch s.lowercased() {
                case "true", "yes": t.index = true
                case "false", "no": t.index = false
                default: throw failure(id, f + ".index", "expected true or false, found '\(s)'")
                }
            }
            if let m = member(kindNode, "match") {
                t.match = tree.kind(of: m) == .array ? tree.children(of: m).compactMap { tree.value(of: $0)?.text } : [tree.value(of: m)?.text ?? ""]
            }
            if let formats = member(kindNode, "formats") {
                for entry in tree.children(of: formats) {
                    let names = (tree.value(of: entry)?.text ?? "").split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
                    var list: [Formatter] = []
                    for n in names {
                        guard let fm = Formatter(rawValue: n.lowercased()) else {
                            throw failure(entry, f + ".formats." + tree.title(of: entry), "unknown formatter '\(n)'")
                        }
                        list.append(fm)
                    }
                    t.formats[tree.title(of: entry)] = list
                }
            }
            if let controls = member(kindNode, "controls") {
                for (i, c) in tree.children(of: controls).enumerated() {
                    let cf = "\(f).controls[\(i)]"
                    try checkKeys(c, Keys.control, cf)
                    guard let kindMember = tree.children(of: c).first(where: { Control.Kind(rawValue: tree.title(of: $0).lowercased()) != nil }),
                        let kind = Control.Kind(rawValue: tree.title(of: kindMember).lowercased())
                    else {
                        throw failure(c, cf, "expected one of switch, slider, stepper, button")
                    }
                    let label = try text(kindMember, cf) ?? ""
                    let target = kind == .button ? (try text(member(c, "action"), cf + ".action") ?? label.lowercased()) : label
                    t.controls.append(Control(
                        kind: kind, target: target, label: label,
                        min: try number(member(c, "min"), cf + ".min", 0),
                        max: try number(member(c, "max"), cf + ".max", kind == .stepper ? 10 : 100),
                        step: try number(member(c, "step"), cf + ".step", 1)))
                }
            }
            if let list = member(kindNode, "fields") { t.fields = try Schema.fields(list, in: tree, field: f + ".fields", file: file) }
            kinds.append(t)
        }
        if let rootKind, template(named: rootKind) == nil {
            throw failure(member(root, "root"), "root", "names kind '\(rootKind)', which 'kinds' does not define")
        }
        // A kind named only as a `childKind` (`artist: { childKind: album }`) is a kind with
        // defaults: rows of it look like plain rows until the schema says more.
        for t in kinds {
            if let ck = t.childKind, template(named: ck) == nil { kinds.append(Template(kind: ck)) }
        }
    }
}

import Foundation
