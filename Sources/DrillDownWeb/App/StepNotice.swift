import DrillDownCore
import Foundation

/// What an undo or redo did, for the notice the page shows after it ("Undid Rename of Ringtone",
/// with Redo), and where: the level whose page shows the effect, by its titles and its link, so
/// a step taken back on another page says so ("in Sounds › Alerts", Show).
///
/// The JSON answer of `POST /api/edit/undo` and `/redo` carries it as `step`; a form posted
/// without script gets it back on the next page through the short-lived `dd_notice` cookie
/// (base64url JSON, read back only when well formed and pointing into this server, and shown
/// HTML-escaped like every value).
struct StepNotice: Codable, Sendable, Equatable {
    /// `undo` or `redo`: what was done.
    var op: String
    /// What the step did (``StepSummary``).
    var summary: String
    /// The TreePath of the level whose page shows the effect.
    var level: String
    /// That level's titles below the root, joined with " › " (the root's title for the root).
    var place: String
    /// The link to that level's page.
    var href: String
    /// The row the step changed, where it is now (`nil` when the undo took an added row away).
    var row: String?

    /// The cookie a no-script undo or redo leaves for the next page.
    static let cookieName = "dd_notice"

    /// The notice of `step`, undone (`op` "undo") or redone, read in `source` as it is after it.
    init?(op: String, step: EditStep, in source: any Source) {
        guard !step.summary.isEmpty, var level = step.level(undone: op == "undo") else { return nil }
        // A level the data no longer has (another writer moved on): its nearest ancestor that is there.
        while !level.isRoot, source.node(at: level) == nil { level = level.parent }
        guard let id = source.node(at: level) else { return nil }
        self.op = op
        summary = step.summary
        self.level = level.description
        let titles = source.lineage(of: id).dropFirst().map { StepSummary.shortTitle(source.title(of: $0)) }
        place = titles.isEmpty ? source.rootTitle : titles.joined(separator: " › ")
        href = Links.level(level)
        row = step.row(undone: op == "undo").map(\.description)
    }

    /// The words the notice starts with: "Undid Rename of Ringtone".
    var sentence: String { (op == "undo" ? "Undid " : "Redid ") + summary }

    /// The `Set-Cookie` value that carries the notice to the next page (a minute at most).
    var cookie: String {
        let data = (try? Responses.jsonData(self)) ?? Data()
        let text = data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        return "\(Self.cookieName)=\(text); Path=/; Max-Age=60; SameSite=Strict; HttpOnly"
    }

    /// The cookie that removes the notice once a page showed it.
    static let clearingCookie = "\(cookieName)=; Path=/; Max-Age=0; SameSite=Strict; HttpOnly"

    /// The notice in a request's `Cookie` headers, when there is a well-formed one.
    static func find(in cookies: [String]) -> StepNotice? {
        for header in cookies {
            for part in header.split(separator: ";") {
                let pair = part.trimmingCharacters(in: .whitespaces)
                guard pair.hasPrefix(cookieName + "="), pair.utf8.count < 4096 else { continue }
                var text = pair.dropFirst(cookieName.count + 1).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
                text += String(repeating: "=", count: (4 - text.count % 4) % 4)
                guard let data = Data(base64Encoded: text), let notice = try? JSONDecoder().decode(StepNotice.self, from: data),
                    notice.isWellFormed
                else { continue }
                return notice
            }
        }
        return nil
    }

    /// Whether the fields are what this server writes: an op, a TreePath and its own link.
    var isWellFormed: Bool {
        guard op == "undo" || op == "redo", let path = TreePath(level), href == Links.level(path) else { return false }
        return row.map { TreePath($0) != nil } ?? true
    }

    /// The notice for a page's template: its words, its place and link when `here` is another
    /// page, and the opposite step's button.
    func context(here: String?) -> [String: Any] {
        var c: [String: Any] = ["sentence": sentence, "again": op == "undo" ? "redo" : "undo", "againLabel": op == "undo" ? "Redo" : "Undo"]
        if here != href { c["elsewhere"] = ["place": place, "href": href] }
        return c
    }
}
