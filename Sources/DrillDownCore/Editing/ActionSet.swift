import Foundation

/// Code that computes an action's changes for the node at `path` in `document` (the Sounds example's
/// row buttons): return the changes, or throw to refuse.
public typealias ActionHandler = @Sendable (_ path: TreePath, _ document: any Source) throws -> [Change]

/// The named actions a document's rows can run, and what the controls inside rows do.
///
/// Actions come from the schema's `actions:` mapping, each a small declarative recipe:
///
/// ```yaml
/// actions:
///   play:    { increment: plays }          # +1 (or `by: 5`); a missing value counts as 0
///   ping:    { setNow: lastPinged }        # the current time, ISO 8601 UTC
///   like:    { toggle: favorite }          # true ⇄ false; missing counts as false
///   archive: { set: "state=archived" }     # the value typed like `drilldown set` does
/// ```
///
/// or from code, which wins over a schema action of the same name:
///
/// ```swift
/// var actions = try ActionSet(schema: schema)
/// actions.register("reset") { path, document in
///     [.setAttribute(path, key: "plays", value: Scalar(.integer, "0"))]
/// }
/// let changes = try actions.changes(for: "play", at: [0, 3], in: source)
/// ```
public struct ActionSet: Sendable {
    /// One declarative operation.
    enum Operation: Sendable, Equatable {
        case set(key: String, value: Scalar)
        case toggle(String)
        case increment(String, by: Double)
        case setNow(String)
    }

    var declared: [String: [Operation]] = [:]
    var handlers: [String: ActionHandler] = [:]
    /// The schema whose kinds say which rows offer which actions; `nil` for a set built in code only.
    var schema: Schema?

    /// No actions, and no kinds: registered actions run on any node.
    public init() {}

    /// The schema's declarative actions. A node runs only the schema actions its kind offers
    /// (its `select: action:NAME` and its buttons' actions), see ``offeredActions(of:in:)``.
    /// - Throws: ``EditError`` naming the action whose recipe is not understood.
    public init(schema: Schema) throws(EditError) {
        self.schema = schema
        for (name, spec) in schema.actions {
            var ops: [Operation] = []
            let known = Set(Schema.Keys.action.map { $0.lowercased() })
            if let unknown = spec.keys.sorted().first(where: { !known.contains($0.lowercased()) }) {
                throw EditError("action '\(name)': unknown operation '\(unknown)' (expected set, toggle, increment [by], setNow)")
            }
            func field(_ key: String) -> String? {
                spec.first { $0.key.lowercased() == key }.map { $0.value.trimmingCharacters(in: .whitespaces) }
            }
            if let s = field("set") {
                guard let eq = s.firstIndex(of: "="), eq != s.startIndex else {
                    throw EditError("action '\(name)': 'set' needs key=value, found '\(s)'")
                }
                ops.append(.set(key: String(s[..<eq]), value: Scalar(inferring: String(s[s.index(after: eq)...]))))
            }
            if let key = field("toggle"), !key.isEmpty { ops.append(.toggle(key)) }
            if let key = field("increment"), !key.isEmpty {
                let byText = field("by") ?? "1"
                guard let by = Double(byText), by.isFinite else { throw EditError("action '\(name)': 'by' needs a number, found '\(byText)'") }
                ops.append(.increment(key, by: by))
            }
            if let key = field("setnow"), !key.isEmpty { ops.append(.setNow(key)) }
            guard !ops.isEmpty else { throw EditError("action '\(name)' does nothing (expected set, toggle, increment, setNow)") }
            declared[name] = ops
        }
    }

    /// Registers (or replaces) an action implemented in code.
    public mutating func register(_ name: String, _ handler: @escaping ActionHandler) { handlers[name] = handler }

    /// The names of every action, sorted.
    public var names: [String] { Set(declared.keys).union(handlers.keys).sorted() }

    /// The actions the node `id` offers under the schema: its kind's `select: action:NAME` and
    /// its buttons' actions, in that order; `nil` when the set has no schema (every action runs).
    /// The root and nodes without a kind offer none.
    public func offeredActions(of id: NodeID, in document: any Source) -> [String]? {
        guard let schema else { return nil }
        guard let template = Presenter(source: document, schema: schema).kind(of: id) else { return [] }
        var names: [String] = []
        if case .action(let name) = template.select { names.append(name) }
        for control in template.controls where control.kind == .button && !names.contains(control.target) {
            names.append(control.target)
        }
        return names
    }

    /// The changes running action `name` on the node at `path` makes.
    ///
    /// With a schema, a schema action runs only on a node whose kind offers it (the one rule the
    /// CLI's `run`, the web's run route and the terminal's keys share): running `play` on a switch
    /// row or on the root is refused with a message naming the kind and the actions it offers.
    /// An action registered only in code is the program's own and runs wherever its handler allows.
    /// - Parameter now: the time `setNow` records.
    /// - Throws: ``EditError`` for an unknown action, one the node's kind does not offer, a
    ///   missing node, a non-numeric value to increment, or whatever a registered handler throws
    ///   (its description becomes the message).
    public func changes(for name: String, at path: TreePath, in document: any Source, now: Date = Date()) throws(EditError) -> [Change] {
        guard let id = document.node(at: path) else { throw EditError("no node at TreePath \(path)", at: path) }
        guard handlers[name] != nil || declared[name] != nil else {
            let known = names.isEmpty ? "none are defined" : "known: " + names.joined(separator: ", ")
            throw EditError("no action named '\(name)' (\(known))", at: path)
        }
        // The schema's actions follow its kinds; an action only registered in code runs where its code allows.
        if declared[name] != nil, let offered = offeredActions(of: id, in: document), !offered.contains(name) {
            throw EditError(Self.notOffered(name, by: id, at: path, in: document, schema: schema, offered: offered), at: path)
        }
        if let handler = handlers[name] {
            do { return try handler(path, document) } catch let error as EditError { throw error } catch {
                throw EditError("action '\(name)': \(error)", at: path)
            }
        }
        guard let ops = declared[name] else {
            let known = names.isEmpty ? "none are defined" : "known: " + names.joined(separator: ", ")
            throw EditError("no action named '\(name)' (\(known))", at: path)
        }
        var changes: [Change] = []
        for op in ops {
            switch op {
            case .set(let key, let value):
                changes.append(.setAttribute(path, key: key, value: value))
            case .toggle(let key):
                changes.append(Self.toggling(key, of: id, at: path, in: document))
            case .increment(let key, let by):
                let current = document.attribute(key, of: id)
                let base: Double
                if let current {
                    guard let n = current.number, current.kind != .bool else {
                        throw EditError("action '\(name)': '\(key)' is '\(current.text)', not a number", at: path)
                    }
                    base = n
                } else {
                    base = 0
                }
                changes.append(.setAttribute(path, key: key, value: Scalar(number: base + by)))
            case .setNow(let key):
                changes.append(.setAttribute(path, key: key, value: Scalar(.date, Self.iso8601(now))))
            }
        }
        return changes
    }

    /// Why `name` does not run on `id`: what the node is, its kind, and what it offers instead.
    static func notOffered(
        _ name: String, by id: NodeID, at path: TreePath, in document: any Source, schema: Schema?, offered: [String]
    ) -> String {
        if id == document.root { return "action '\(name)' cannot run on the root: only rows whose kind offers it run an action" }
        let title = document.title(of: id)
        guard let schema, let kind = Presenter(source: document, schema: schema).kind(of: id)?.kind else {
            return "'\(title)' at \(path) has no kind in the schema, so it offers no actions ('\(name)' not run)"
        }
        let offers = offered.isEmpty ? "offers no actions" : "offers only " + offered.map { "'\($0)'" }.joined(separator: ", ")
        return "'\(title)' at \(path) is of kind '\(kind)', which \(offers); '\(name)' not run"
    }

    /// The change that flips boolean attribute `key` (missing counts as false).
    static func toggling(_ key: String, of id: NodeID, at path: TreePath, in document: any Source) -> Change {
        let on = document.attribute(key, of: id)?.bool ?? false
        return .setAttribute(path, key: key, value: Scalar(.bool, on ? "false" : "true"))
    }

    /// `date` as ISO 8601 in UTC to the second, e.g. `2025-03-01T09:30:00Z`.
    public static func iso8601(_ date: Date) -> String {
        ISO8601Text.text(unixSeconds: date.timeIntervalSince1970.rounded(.down))
    }
}
