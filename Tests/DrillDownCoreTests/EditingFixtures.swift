@testable import DrillDownCore

/// A compact, order-preserving text form of a tree, for readable expectations:
/// `{Rows:[{Title:"Item 1"}]}`, scalars as `kind:text` unless strings.
func dump(_ tree: TreeStore, _ id: NodeID? = nil) -> String {
    let n = id ?? tree.root
    switch tree.kind(of: n) {
    case .object:
        return "{" + tree.children(of: n).map { String(decoding: tree.keyBytes(of: $0), as: UTF8.self) + ":" + dump(tree, $0) }
            .joined(separator: ",") + "}"
    case .array:
        return "[" + tree.children(of: n).map { dump(tree, $0) }.joined(separator: ",") + "]"
    case .string:
        return "\"" + String(decoding: tree.valueBytes(of: n), as: UTF8.self) + "\""
    case let k:
        return "\(k):" + String(decoding: tree.valueBytes(of: n), as: UTF8.self)
    }
}

/// The Sounds example as a document literal, like `Examples/Sounds/sounds.plist`.
let soundsDoc: Doc = .object([
    ("Title", .string("Settings")),
    ("Rows", .array([
        .object([
            ("Title", .string("Sounds")),
            ("Children", .array([
                .object([("Title", .string("Vibrate on Ring")), ("kind", .string("toggle")), ("enabled", .bool(true))]),
                .object([("Title", .string("Vibrate on Silent")), ("kind", .string("toggle")), ("enabled", .bool(false))]),
                .object([("Title", .string("Ringer and Alerts")), ("kind", .string("volume")), ("volume", .int(60))]),
                .object([("Title", .string("Ringtone")), ("kind", .string("sound")), ("file", .string("Opening.m4r")), ("plays", .int(0))]),
                .object([("Title", .string("Text Tone")), ("kind", .string("sound")), ("file", .string("Note.m4r")), ("plays", .int(0))]),
            ])),
        ]),
        .object([("Title", .string("General")), ("Children", .array([.object([("Title", .string("About")), ("version", .string("1.0"))])]))]),
    ])),
])

/// The Sounds example's schema (`Examples/Sounds/schema.yaml`).
func soundsSchema() throws -> Schema {
    let doc: Doc = .object([
        ("title", .string("Settings")),
        ("kinds", .object([
            ("toggle", .object([("select", .string("none")), ("controls", .array([.object([("switch", .string("enabled"))])]))])),
            ("volume", .object([
                ("select", .string("none")), ("subtitle", .string("{volume}%")),
                ("controls", .array([.object([("slider", .string("volume")), ("min", .int(0)), ("max", .int(100)), ("step", .int(5))])])),
            ])),
            ("sound", .object([
                ("subtitle", .string("{file}")), ("select", .string("detail")),
                ("controls", .array([
                    .object([("button", .string("Play")), ("action", .string("play"))]),
                    .object([("button", .string("Ping")), ("action", .string("ping"))]),
                ])),
            ])),
        ])),
        ("actions", .object([
            ("play", .object([("increment", .string("plays"))])),
            ("ping", .object([("setNow", .string("lastPinged"))])),
        ])),
    ])
    return try Schema(tree: doc.tree, file: "schema.yaml")
}

/// A random document of the outline convention: rows with titles, a few attributes, and children.
func randomOutlineDoc(_ rng: inout SplitMix, budget: inout Int) -> Doc {
    func rows(_ depth: Int) -> [Doc] {
        var result: [Doc] = []
        let n = Int.random(in: 0 ... 5, using: &rng)
        for i in 0 ..< n where budget > 0 {
            budget -= 1
            var extra: [(String, Doc)] = []
            if Bool.random(using: &rng) { extra.append(("plays", .int(Int.random(in: 0 ..< 9, using: &rng)))) }
            if Int.random(in: 0 ..< 4, using: &rng) == 0 { extra.append(("on", .bool(Bool.random(using: &rng)))) }
            let kids = depth < 5 && Int.random(in: 0 ..< 3, using: &rng) > 0 ? rows(depth + 1) : []
            result.append(row("r\(depth).\(i).\(Int.random(in: 0 ..< 100, using: &rng))", kids, extra))
        }
        return result
    }
    var top = rows(0)
    if top.isEmpty { top = [row("only")] }
    return .object([("Rows", .array(top))])
}
