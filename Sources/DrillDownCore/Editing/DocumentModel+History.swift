/// The audit history of a ``DocumentModel``: every step recorded with its author, Revert of any
/// recorded step, and Undo and Redo per author (my Undo never takes back your change).
///
/// ```swift
/// await model.keepHistory(in: journal)
/// try await HistoryAuthor.$current.withValue(HistoryAuthor(user: "ana")) {
///     try await model.apply(.updateTitle([0], title: "Chime"))
///     try await model.undo()          // ana's latest step, whoever changed what since
/// }
/// try await model.revert(12)          // record #12's inverse, as a new step
/// ```
extension DocumentModel {
    /// Records every later step in `log`, and makes Undo and Redo per author (see ``undo(by:key:)``).
    public func keepHistory(in log: any HistoryLog) {
        historyLog = log
        historySeen = (try? log.page(touching: .root, offset: 0, limit: 1))?.records.first?.id ?? 0
    }

    /// The most records an external change reads from the history to say how rows moved: past
    /// that, it says nothing (``ChangeEvent/recorded`` is empty) and followers check the rows.
    static let recordedLimit = 1000

    /// Publishes a change other writers made (the data was read again): with a history, the
    /// steps they recorded since the model last looked are its ``ChangeEvent/recorded``.
    func publishExternal() {
        publish(.external, [], [], recorded: recordedElsewhere())
    }

    /// The steps other instances recorded after ``historySeen``, oldest first (this instance's
    /// own steps were published as they were made); empty without a history or when it cannot
    /// be read (it is read again from the same place at the next external change).
    func recordedElsewhere() -> [EditStep] {
        guard let historyLog, let seen = historySeen else { return [] }
        guard let records = try? historyLog.records(after: seen, limit: Self.recordedLimit + 1) else { return [] }
        guard records.count <= Self.recordedLimit else {
            // Too many to follow (this instance's own steps count too, as they are not told
            // apart before reading): read none of them, and go on from the newest record.
            historySeen = (try? historyLog.page(touching: .root, offset: 0, limit: 1))?.records.first?.id ?? records.last?.id
            return []
        }
        historySeen = records.last?.id ?? seen
        return records.filter { $0.instance != HistoryAuthor.thisInstance }.map { EditStep(changes: $0.changes, paths: $0.paths, summary: $0.summary) }
    }

    /// Appends the record of a step that is already stored.
    func appendRecord(_ record: HistoryRecord) throws(EditError) {
        guard let historyLog else { return }
        do { _ = try historyLog.append([record]) } catch { throw EditError("could not record the change in the history: \(error)") }
    }

    /// The log, or the error that there is none.
    func requireLog() throws(EditError) -> any HistoryLog {
        guard let historyLog else { throw EditError("this data set keeps no history") }
        return historyLog
    }

    /// Runs `body` on the log, turning its failures into ``EditError``s.
    func reading<T>(_ body: (any HistoryLog) throws -> T) throws(EditError) -> T {
        let log = try requireLog()
        do { return try body(log) } catch let error as EditError { throw error } catch { throw EditError("could not read the history: \(error)", reason: .unavailable) }
    }

    /// The records touching `path` (every record for the root), newest first.
    public func historyPage(touching path: TreePath = .root, offset: Int = 0, limit: Int = 50) throws(EditError) -> HistoryPage {
        try reading { log in try log.page(touching: path, offset: offset, limit: limit) }
    }

    /// The record numbered `id`.
    public func historyRecord(_ id: Int64) throws(EditError) -> HistoryRecord {
        guard let record = try reading({ log in try log.record(id) }) else { throw EditError("there is no change #\(id) in the history") }
        return record
    }

    /// Applies the inverse of record `id` as a new step by ``HistoryAuthor/current`` (see
    /// ``RevertPlan``) and returns its paths; refused with the reason when a later step depends on it.
    @discardableResult
    public func revert(_ id: Int64, key: StepKey? = nil) async throws(EditError) -> [TreePath] {
        let record = try historyRecord(id)
        let changes = try RevertPlan.changes(reverting: record, later: try reading { log in try log.records(after: id) })
        return try await step(key: key, kind: .revert, target: id) { store throws(EditError) in (changes, try store.apply(changes)) }
    }

    /// What `author`'s Undo would take back and Redo apply again, from the history.
    public func steps(of author: HistoryAuthor) throws(EditError) -> (undo: HistoryRecord?, redo: HistoryRecord?) {
        // The newest few records almost always settle it (a plain change is the Undo at once);
        // only a run of undos and redos needs the longer look. Each record read is decoded, and
        // reading 500 per request saturated the CPU of a server whose history had grown.
        let few = 16
        let first = try reading { log in try log.recent(by: author, limit: few) }
        if first.count < few, let settled = Self.steps(in: first) { return settled }
        if let settled = Self.steps(in: first, complete: false) { return settled }
        let recent = try reading { log in try log.recent(by: author, limit: 500) }
        return Self.steps(in: recent) ?? (nil, nil)
    }

    /// The Undo and Redo of an author whose newest records are `recent` (newest first); `nil` when
    /// these records do not settle it and older ones may (`complete`: there are no older ones).
    static func steps(in recent: [HistoryRecord], complete: Bool = true) -> (undo: HistoryRecord?, redo: HistoryRecord?)? {
        var undone = Set<Int64>(), redone = Set<Int64>()
        var undo: HistoryRecord?, redo: HistoryRecord?, redoOpen = true
        for record in recent {
            switch record.kind {
            case .undo:
                if redoOpen, redo == nil, !redone.contains(record.id) { redo = record }
                if let target = record.target { undone.insert(target) }
            case .redo:
                if let target = record.target { redone.insert(target) }
                if undo == nil, !undone.contains(record.id) { undo = record }
            case .change, .revert:
                redoOpen = false
                if undo == nil, !undone.contains(record.id) { undo = record }
            }
            if undo != nil, redo != nil || !redoOpen { return (undo, redo) }
        }
        return complete ? (undo, redo) : nil
    }

    /// What Undo and Redo can do for `author` (``steps(of:)``), for a front end's buttons.
    public func history(for author: HistoryAuthor) async -> HistoryState {
        // A step's record is in the log once the write holding it is done.
        await settled()
        guard historyLog != nil else { return store.history }
        let key = Self.key(of: author)
        if authorHistories.revision == revision, let known = authorHistories.states[key] { return known }
        guard let (undo, redo) = try? steps(of: author) else { return store.history }
        // Redo applies again the step its Undo took back, and says so.
        let again = redo.map { redo in (redo.target.flatMap { try? historyRecord($0) })?.summary ?? redo.summary }
        let state = HistoryState(canUndo: undo != nil, canRedo: redo != nil, undo: undo?.summary, redo: again)
        if authorHistories.revision != revision || authorHistories.states.count >= 1024 { authorHistories = (revision, [:]) }
        authorHistories.states[key] = state
        return state
    }

    /// The key of `author`'s state in ``authorHistories``.
    static func key(of author: HistoryAuthor) -> String { (author.user ?? "") + "\u{0}" + (author.session ?? "") }

    /// After a new change (or Revert) of ``HistoryAuthor/current``, published at `published` and
    /// described as `summary`: their Undo is that step and their Redo nothing (a change of theirs
    /// closes their Redo), known without reading the log, as long as no other step was published
    /// since. Saves the edit's answer a query of the history per change.
    func noteOwnStep(at published: Int, summary: String?) {
        guard historyLog != nil, revision == published else { return }
        if authorHistories.revision != revision { authorHistories = (revision, [:]) }
        authorHistories.states[Self.key(of: .current)] = HistoryState(canUndo: true, canRedo: false, undo: summary, redo: nil)
    }

    /// Waits until every step applied so far is written (a document's group commit), so that
    /// their records are in the log (at once without a storage, or when nothing is waiting).
    func settled() async {
        while storage != nil, writing || !unwritten.isEmpty {
            await withCheckedContinuation { settledWaiters.append($0) }
        }
    }

    /// Takes back `author`'s latest step still in effect, as a new step (whoever changed what
    /// since, unless a later step depends on it: see ``RevertPlan``); `nil` when there is none.
    @discardableResult
    public func undo(by author: HistoryAuthor, key: StepKey? = nil) async throws(EditError) -> EditStep? {
        guard let record = try steps(of: author).undo else { return nil }
        return try await again(record, kind: .undo, key: key)
    }

    /// Takes back `author`'s latest Undo, when no step of theirs came after it; `nil` when there is none.
    @discardableResult
    public func redo(by author: HistoryAuthor, key: StepKey? = nil) async throws(EditError) -> EditStep? {
        guard let record = try steps(of: author).redo else { return nil }
        return try await again(record, kind: .redo, key: key)
    }

    /// `record`'s inverse as a step of `kind` (an undo or redo) by ``HistoryAuthor/current``.
    func again(_ record: HistoryRecord, kind: HistoryRecord.Kind, key: StepKey?) async throws(EditError) -> EditStep {
        let changes = try RevertPlan.changes(reverting: record, later: try reading { log in try log.records(after: record.id) })
        let summary = kind == .redo ? (try? historyRecord(record.target ?? 0).summary) ?? record.summary : record.summary
        let paths = try await step(key: key, kind: kind, target: record.id, summary: summary) { store throws(EditError) in (changes, try store.apply(changes)) }
        // An undo is described as the step it took back (where it was made), a redo as what it applied.
        if kind == .undo { return EditStep(changes: record.changes, paths: record.paths, summary: summary) }
        return EditStep(changes: changes, paths: paths, summary: summary)
    }
}

extension HistoryAuthor {
    /// The author of the steps made in the current task: front ends set it around a request
    /// (`HistoryAuthor.$current.withValue(author) { … }`); anonymous when unset.
    @TaskLocal public static var current = HistoryAuthor(user: nil)
}
