import Foundation

/// One entry of a data set's audit history: who made a step, when, from which instance, and what
/// it did (the changes as applied and their inverse, so it can be reverted later).
///
/// Every store keeps the same record (an SQLite or PostgreSQL table beside the data, a document's
/// `FILE.drilldown-history` journal), written with the step itself.
///
/// ```swift
/// let page = try log.page(touching: [0, 3], offset: 0, limit: 20)     // newest first
/// for record in page.records { print(record.user ?? "anonymous", record.summary) }
/// try await HistoryAuthor.$current.withValue(HistoryAuthor(user: "ana")) { try await model.revert(page.records[0].id) }
/// ```
public struct HistoryRecord: Sendable, Equatable, Codable {
    /// What made the step.
    public enum Kind: String, Sendable, Codable {
        /// An edit, action or control.
        case change
        /// ``HistoryRecord/target``'s inverse, applied as a new step by Revert.
        case revert
        /// An Undo of ``HistoryRecord/target`` (its user's own step).
        case undo
        /// A Redo: the Undo ``HistoryRecord/target`` taken back again.
        case redo
    }

    /// The log's number for the record: increasing, unique in the data set's history.
    public var id: Int64
    /// Who made the step (the signed-in user); `nil` for an anonymous one.
    public var user: String?
    /// The anonymous session that made the step, so its Undo finds it (`nil` when signed in).
    public var session: String?
    /// When the step was made.
    public var time: Date
    /// The instance (process) that wrote it: host name and process id.
    public var instance: String
    /// What made the step.
    public var kind: Kind
    /// The record reverted, undone or redone (``Kind/revert``, ``Kind/undo``, ``Kind/redo``).
    public var target: Int64?
    /// What the step did, in words (``StepSummary``).
    public var summary: String
    /// The changes, as applied.
    public var changes: [Change]
    /// The path each change affected (see ``EditableDocument/apply(_:)``).
    public var paths: [TreePath]
    /// The changes that take the step back, applied in order to the data as the step left it.
    public var inverse: [Change]

    /// Creates a record (a log gives it its ``id`` when it is appended).
    public init(
        id: Int64 = 0, user: String?, session: String? = nil, time: Date = Date(), instance: String = HistoryAuthor.thisInstance,
        kind: Kind = .change, target: Int64? = nil, summary: String, changes: [Change], paths: [TreePath], inverse: [Change]
    ) {
        self.id = id
        self.user = user
        self.session = session
        self.time = time
        self.instance = instance
        self.kind = kind
        self.target = target
        self.summary = summary
        self.changes = changes
        self.paths = paths
        self.inverse = inverse
    }

    /// A record of a step `changes` made to `before`, with their `paths`, by `author`.
    public init(_ changes: [Change], paths: [TreePath], before: any Source, by author: HistoryAuthor, kind: Kind = .change, target: Int64? = nil) {
        self.init(
            user: author.user, session: author.user == nil ? author.session : nil, instance: author.instance, kind: kind, target: target,
            summary: StepSummary.describe(changes, in: before), changes: changes, paths: paths,
            inverse: ChangeInverse.of(changes, paths: paths, in: before))
    }

    /// Who, as people read it: the user, or "anonymous".
    public var who: String { user ?? "anonymous" }

    /// Whether the record touches the node at `path` or a node below it (any change's path or
    /// affected path has it as a prefix); every record touches the root.
    public func touches(_ path: TreePath) -> Bool {
        if path.isRoot { return true }
        return changes.contains { $0.path.hasPrefix(path) } || paths.contains { $0.hasPrefix(path) }
    }

    /// What each change made of a value: old → new, for a history screen.
    public var differences: [HistoryDifference] { HistoryDifference.of(self) }
}

/// Who makes a step, as its ``HistoryRecord`` names them.
public struct HistoryAuthor: Sendable, Equatable {
    /// The signed-in user; `nil` for anonymous.
    public var user: String?
    /// The anonymous session (the web's session id), so that session's Undo finds its own steps.
    public var session: String?
    /// The instance making the step.
    public var instance: String

    /// An author; `instance` defaults to this process.
    public init(user: String?, session: String? = nil, instance: String = HistoryAuthor.thisInstance) {
        self.user = user
        self.session = session
        self.instance = instance
    }

    /// This process: host name and process id ("web-1:4242").
    public static let thisInstance = "\(ProcessInfo.processInfo.hostName):\(ProcessInfo.processInfo.processIdentifier)"

    /// Whether `record` was made by this author: the same user, or for anonymous authors the same session.
    public func made(_ record: HistoryRecord) -> Bool {
        if let user { return record.user == user }
        return record.user == nil && session != nil && record.session == session
    }
}

/// One value a step changed, old → new, as a history screen shows it.
public struct HistoryDifference: Sendable, Equatable, Codable {
    /// The row, where the step left it.
    public var path: TreePath
    /// What changed: "title", an attribute's key, "value", or "row" for an addition, deletion or move.
    public var field: String
    /// The value before (`nil`: there was none, e.g. a row added).
    public var old: String?
    /// The value after (`nil`: there is none now, e.g. a row deleted).
    public var new: String?

    /// The differences of `record`: each change paired with the inverse change that takes it back.
    static func of(_ record: HistoryRecord) -> [HistoryDifference] {
        var result: [HistoryDifference] = []
        for (i, change) in record.changes.enumerated() {
            let path = i < record.paths.count ? record.paths[i] : change.path
            switch change {
            case .updateTitle(_, let title):
                let old = record.inverse.lazy.compactMap { if case .updateTitle(path, let t) = $0 { t } else { nil } }.first
                result.append(HistoryDifference(path: path, field: "title", old: old, new: title))
            case .setAttribute(_, let key, let value):
                let old = record.inverse.lazy.compactMap { if case .setAttribute(path, key, let v) = $0 { Optional(v?.text) } else { nil } }.first
                result.append(HistoryDifference(path: path, field: key, old: old ?? nil, new: value?.text))
            case .setValue(_, let value):
                let old = record.inverse.lazy.compactMap { if case .setValue(path, let v) = $0 { v.text } else { nil } }.first
                result.append(HistoryDifference(path: path, field: "value", old: old, new: value.text))
            case .insert(let node, _, _):
                result.append(HistoryDifference(path: path, field: "row", old: nil, new: node.title))
            case .delete(let deleted):
                let old = record.inverse.lazy.compactMap { if case .insert(let n, _, _) = $0 { n.title } else { nil } }.first
                result.append(HistoryDifference(path: deleted, field: "row", old: old, new: nil))
            case .move(let from, _, _):
                result.append(HistoryDifference(path: path, field: "place", old: from.description, new: path.description))
            }
        }
        return result
    }
}
