import Foundation

/// The shared, observable document behind every open view: one
/// actor that applies changes, runs actions and controls, saves, and tells every subscriber.
///
/// Views read a ``source`` snapshot (immutable, so safe to keep and read on any thread) and
/// follow ``changes()`` to learn about every later step, much as GRDB's `ValueObservation`
/// does for a database.
///
/// ```swift
/// let model = DocumentModel(
///     document: EditableDocument(source: source, schema: schema),
///     actions: try ActionSet(schema: schema),
///     save: { tree in try DocumentWriter.write(tree, to: file, format: format) })
/// Task {
///     for await event in await model.changes() { render(event.source, at: event.paths) }
/// }
/// try await model.apply(.updateTitle([0], title: "Sounds & Haptics"))
/// try await model.run("play", at: [0, 3])
/// ```
///
/// The `save` closure runs after every step, before the step is published; if it throws, the
/// step is rolled back and the error rethrown, so what subscribers see is what was saved.
///
/// With a ``DocumentStorage`` (a file that can only be replaced whole) the model commits in
/// groups: a step is applied and published at once, and ``apply(_:)`` returns once a write
/// holding it is on disk; steps that arrive while one write runs go into the next. When the file
/// changed elsewhere, the model reads the newer version, applies every step not yet written to it
/// again (a step that no longer applies fails with a message saying so; undo and redo steps are
/// not replayed) and writes that. A failed write fails every step it held, and the document goes
/// back to what is on disk.
public actor DocumentModel {
    /// The model's own serial queue: a database store's steps and refreshes wait for the server
    /// there, off Swift's cooperative threads (see ``QueueExecutor``).
    let executor = QueueExecutor(label: "drilldown.model")
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// Where the data lives: a document in memory, or a database store that commits each step.
    public private(set) var store: any EditingStore
    /// The number of steps applied, undone or redone so far, and of changes picked up from other writers.
    public private(set) var revision = 0
    var actions: ActionSet
    let save: (@Sendable (TreeStore) throws -> Void)?
    var subscribers: [Int: AsyncStream<ChangeEvent>.Continuation] = [:]
    var nextSubscriber = 0
    /// Group commit: where the document is written, the steps not yet on disk, whether a write runs.
    var storage: (any DocumentStorage)?
    var unwritten: [PendingStep] = []
    var writing = false
    /// Who waits until every step applied so far is written (see ``settled()``).
    var settledWaiters: [CheckedContinuation<Void, Never>] = []
    /// Writes done and steps they held (for measurements).
    public private(set) var writes = 0
    public private(set) var writtenSteps = 0
    /// How long the last write took and how many steps it held: with several writers, the next
    /// write waits a little for their next steps (see ``gather()``).
    var lastWrite: (duration: Duration, steps: Int) = (.zero, 0)
    /// Replaces ``gather()``'s time limit (tests: a group's return then does not depend on how
    /// busy the machine's threads are).
    var gatherLimit: Duration?

    func setGatherLimit(_ limit: Duration?) { gatherLimit = limit }

    /// Outcomes of steps done under a ``StepKey`` in this process, so a retried request is
    /// answered without applying it twice.
    public nonisolated let keys = KeyLedger()

    /// Where every step is recorded with its author (see ``keepHistory(in:)``); `nil` keeps none.
    public internal(set) var historyLog: (any HistoryLog)?
    /// The newest record of ``historyLog`` whose step the model has published (its own, or other
    /// writers' in an external event's ``ChangeEvent/recorded``); `nil` when it could not be read.
    var historySeen: Int64?
    /// ``history(for:)`` of each author asked at ``revision`` (every page asks for its reader's),
    /// so that pages read the log once per author and revision, not per request: a database
    /// that hangs then holds no page that was answered before.
    var authorHistories: (revision: Int, states: [String: HistoryState]) = (-1, [:])

    /// A step waiting for a write: its changes (`nil` for undo and redo, which are not replayed on
    /// a newer version) and who waits for it.
    struct PendingStep {
        var changes: [Change]?
        var waiter: CheckedContinuation<EditError?, Never>
        /// The step's history record, begun in the log before the write that holds it.
        var record: HistoryRecord?
    }

    /// Creates a model over an in-memory document.
    /// - Parameters:
    ///   - actions: the actions rows can run (usually `try ActionSet(schema: schema)`).
    ///   - save: persists the tree after each step (the core knows nothing of files).
    public init(document: EditableDocument, actions: ActionSet = ActionSet(), save: (@Sendable (TreeStore) throws -> Void)? = nil) {
        self.store = document
        self.actions = actions
        self.save = save
        latest = LatestSnapshot((self.store.snapshot, 0, self.store.history))
    }

    /// Creates a model over an in-memory document kept in `storage` (a file), committing in groups.
    public init(document: EditableDocument, actions: ActionSet = ActionSet(), storage: any DocumentStorage) {
        self.store = document
        self.actions = actions
        self.save = nil
        self.storage = storage
        latest = LatestSnapshot((self.store.snapshot, 0, self.store.history))
    }

    /// Creates a model over any store (a database store persists each step itself).
    public init(store: any EditingStore, actions: ActionSet = ActionSet()) {
        self.store = store
        self.actions = actions
        self.save = nil
        latest = LatestSnapshot((self.store.snapshot, 0, self.store.history))
    }

    deinit {
        for continuation in subscribers.values { continuation.finish() }
    }

    /// The current data: an immutable snapshot.
    public var source: any Source { store.snapshot }

    /// ``source`` and the ``revision`` it belongs to, read at one moment (two separate reads
    /// from outside the actor may see a change in between). Read without entering the actor, so
    /// a reader never waits behind a step (a database step may wait for its server).
    public nonisolated var versionedSource: (source: any Source, revision: Int) {
        let state = latest.value
        return (state.source, state.revision)
    }

    /// ``versionedSource`` with what Undo and Redo can do at that revision, read at one moment.
    public nonisolated var versionedState: (source: any Source, revision: Int, history: HistoryState) { latest.value }

    /// What Undo and Redo can do now (see ``EditingStore/history``).
    public var history: HistoryState { store.history }

    /// The snapshot, revision and history last published, for ``versionedSource``.
    let latest: LatestSnapshot

    /// The in-memory document, when the store is one.
    public var document: EditableDocument? { store as? EditableDocument }

    /// A new stream of every step from now on, one per subscriber. A subscriber that falls more
    /// than 256 events behind loses the oldest ones (each event carries the full current snapshot).
    /// The stream ends when the subscriber stops iterating or the model goes away.
    public func changes() -> AsyncStream<ChangeEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: ChangeEvent.self, bufferingPolicy: .bufferingNewest(256))
        let id = nextSubscriber
        nextSubscriber += 1
        subscribers[id] = continuation
        continuation.onTermination = { [weak self] _ in
            Task { await self?.unsubscribe(id) }
        }
        return stream
    }

    /// The number of live subscribers.
    public var subscriberCount: Int { subscribers.count }

    func unsubscribe(_ id: Int) { subscribers[id] = nil }

    /// Applies one change as one step; returns the affected path (see ``EditableDocument/apply(_:)``).
    /// With a `key`, a retry of the same request returns the first outcome (see ``StepKey``).
    @discardableResult
    public func apply(_ change: Change, key: StepKey? = nil) async throws(EditError) -> TreePath {
        guard let path = try await apply([change], key: key).first else {
            throw EditError("the Idempotency-Key '\(key?.key ?? "")' was recorded for a step without a path", reason: .keyReused)
        }
        return path
    }

    /// Applies changes as one undoable step (all or nothing); returns each one's path.
    @discardableResult
    public func apply(_ changes: [Change], key: StepKey? = nil) async throws(EditError) -> [TreePath] {
        try await step(key: key) { store throws(EditError) in (changes, try store.apply(changes)) }
    }

    /// Applies, as one step, the changes `derive` makes from the data as the store writes it (an
    /// action or control: see ``EditingStore/apply(deriving:)``); returns their paths.
    @discardableResult
    public func apply(deriving derive: (any Source) throws(EditError) -> [Change], key: StepKey? = nil) async throws(EditError) -> [TreePath] {
        try await step(key: key) { store throws(EditError) in try store.apply(deriving: derive) }
    }

    /// Runs one step on the store (`write` returns the changes applied and their paths), publishes
    /// it, and waits until it is stored. A `key` already seen returns its recorded paths instead.
    func step(
        key: StepKey?, kind: HistoryRecord.Kind = .change, target: Int64? = nil, summary: String? = nil,
        _ write: (inout any EditingStore) throws(EditError) -> (changes: [Change], paths: [TreePath])
    ) async throws(EditError) -> [TreePath] {
        if let key, let earlier = try outcome(of: key) { return earlier.paths }
        let before = store.snapshot
        let storeWritesHistory = historyLog?.writtenByStore == true
        if storeWritesHistory { store.historyDraft = HistoryDraft(author: .current, kind: kind, target: target) }
        defer { if storeWritesHistory { store.historyDraft = nil } }
        let origin: ChangeEvent.Origin = kind == .undo ? .undo : kind == .redo ? .redo : .apply
        let changes: [Change], paths: [TreePath]
        if save == nil {
            // In place: every store's apply is all or nothing, and nothing can fail after it here.
            // (A copy would share the store's undo history and copy it on the next append.)
            let (done, replay) = try inPlace(key: key, write)
            if let replay { return replay }
            (changes, paths) = done
            publish(origin, changes, paths, summary: summary)
        } else {
            var next = store
            (changes, paths) = try write(&next)
            try commit(next, origin, changes, paths, summary: summary)
        }
        let record = historyLog == nil || storeWritesHistory || changes.isEmpty ? nil : HistoryRecord(changes, paths: paths, before: before, by: .current, kind: kind, target: target)
        let (published, summary) = (revision, record?.summary ?? store.history.undo)
        try await written(changes, key: key, paths: paths, record: record)
        if kind == .change || kind == .revert, !changes.isEmpty { noteOwnStep(at: published, summary: summary) }
        return paths
    }

    /// Runs `write` on the store in place, with `key` set for its step. Returns its result, and the
    /// paths recorded earlier under the key when the store found it there (nothing was applied).
    /// A conflict is published as an external change: the store read its data again, and every
    /// page follows.
    func inPlace<T>(key: StepKey?, _ write: (inout any EditingStore) throws(EditError) -> T) throws(EditError) -> (T, replay: [TreePath]?) {
        store.stepKey = key
        defer { store.stepKey = nil }
        let result: T
        do {
            result = try write(&store)
        } catch {
            if error.reason == .conflict { publishExternal() }
            throw error
        }
        guard let key, let replay = store.replayed else { return (result, nil) }
        remember(try replay.checked(for: key), for: key)
        return (result, replay.paths)
    }

    /// Undoes the latest step; returns it, or `nil` when there is nothing to undo. With a `key`, a
    /// retry returns the first outcome (an ``EditStep`` without changes) instead of undoing another.
    @discardableResult
    public func undo(key: StepKey? = nil) async throws(EditError) -> EditStep? {
        if historyLog != nil { return try await undo(by: .current, key: key) }
        return try await history(key: key, .undo) { store throws(EditError) in try store.undo() }
    }

    /// Redoes the latest undone step; returns it, or `nil` when there is nothing to redo.
    @discardableResult
    public func redo(key: StepKey? = nil) async throws(EditError) -> EditStep? {
        if historyLog != nil { return try await redo(by: .current, key: key) }
        return try await history(key: key, .redo) { store throws(EditError) in try store.redo() }
    }

    /// An undo or redo (`move`) as one step, published as `origin`.
    func history(key: StepKey?, _ origin: ChangeEvent.Origin, _ move: (inout any EditingStore) throws(EditError) -> EditStep?) async throws(EditError) -> EditStep? {
        if let key, let earlier = try outcome(of: key) { return EditStep(changes: [], paths: earlier.paths) }
        let step: EditStep
        if save == nil {
            let (done, replay) = try inPlace(key: key, move)
            if let replay { return EditStep(changes: [], paths: replay) }
            guard let done else { return nil }
            step = done
            publish(origin, step.changes, step.paths, summary: step.summary, takesBack: origin == .undo)
        } else {
            var next = store
            guard let done = try move(&next) else { return nil }
            step = done
            try commit(next, origin, step.changes, step.paths, summary: step.summary, takesBack: origin == .undo)
        }
        try await written(nil, key: key, paths: step.paths)
        return step
    }

    /// The outcome of an earlier step done under `key` in this process, if there was one (marked
    /// ``StepOutcome/replayed``); a key used for another request is refused.
    public nonisolated func outcome(of key: StepKey) throws(EditError) -> StepOutcome? { try keys.outcome(of: key) }

    /// The outcome recorded for `key` in this process as it was recorded (``StepOutcome/replayed``
    /// when it was an earlier instance's, found in the store), without checking its request.
    public nonisolated func recorded(_ key: StepKey) -> StepOutcome? { keys.recorded(key) }

    func remember(_ outcome: StepOutcome, for key: StepKey) { keys.remember(outcome, for: key) }

    /// Picks up changes other writers made (see ``EditingStore/refresh()``) and, when there are
    /// any, publishes an ``ChangeEvent/Origin/external`` event; returns whether there were.
    @discardableResult
    public func refresh() throws(EditError) -> Bool {
        if storage != nil { return try refreshStorage() }
        var next = store
        guard try next.refresh() else { return false }
        store = next
        publishExternal()
        return true
    }

    /// Starts following other writers: calls ``refresh()`` every `interval` until the returned
    /// task is cancelled or the model goes away. A failed refresh is kept in ``refreshFailure``
    /// and tried again at the next tick.
    public func watch(every interval: Duration) -> Task<Void, Never> {
        Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                guard let self else { return }
                await self.refreshBriefly()
            }
        }
    }

    /// ``watch(every:)``, and also a refresh as soon as `news` has an element (a database's
    /// notification that another writer committed), without waiting for the next tick.
    public func watch(every interval: Duration, wakingOn news: AsyncStream<Void>) -> Task<Void, Never> {
        let ticks = watch(every: interval)
        return Task { [weak self] in
            await withTaskCancellationHandler {
                for await _ in news {
                    guard let self else { return }
                    await self.refreshBriefly()
                }
            } onCancel: {
                ticks.cancel()
            }
            ticks.cancel()
        }
    }

    /// Why the latest ``watch(every:)`` refresh failed, if it did.
    public private(set) var refreshFailure: EditError?

    /// How long a background refresh may wait for a database server: it runs on the model's queue,
    /// where a write waits behind it, so a server that stops answering costs writes this, not the
    /// whole database timeout. A refresh that runs out of time is tried again at the next tick.
    static let refreshBudget: Duration = .milliseconds(250)

    /// ``refreshNoting()`` within ``refreshBudget``.
    func refreshBriefly() async {
        RequestDeadline.$current.withValue(.now + Self.refreshBudget) { refreshNoting() }
    }

    func refreshNoting() {
        do {
            try refresh()
            refreshFailure = nil
        } catch {
            refreshFailure = error
        }
    }

    /// Runs the named action on the node at `path` as one step; returns the affected paths.
    @discardableResult
    public func run(_ action: String, at path: TreePath, key: StepKey? = nil) async throws(EditError) -> [TreePath] {
        let actions = actions
        return try await apply(deriving: { source throws(EditError) in try actions.changes(for: action, at: path, in: source) }, key: key)
    }

    /// Operates a row control on the node at `path` as one step; returns the affected paths.
    @discardableResult
    public func operate(_ control: Control, with input: ControlInput, at path: TreePath, key: StepKey? = nil) async throws(EditError) -> [TreePath] {
        let actions = actions
        return try await apply(deriving: { source throws(EditError) in try actions.changes(operating: control, with: input, at: path, in: source) }, key: key)
    }

    /// Registers (or replaces) an action implemented in code; see ``ActionSet/register(_:_:)``.
    public func registerAction(_ name: String, _ handler: @escaping ActionHandler) { actions.register(name, handler) }

    func commit(
        _ next: any EditingStore, _ origin: ChangeEvent.Origin, _ changes: [Change], _ paths: [TreePath], summary: String? = nil, takesBack: Bool = false
    ) throws(EditError) {
        if let save, let document = next as? EditableDocument {
            do { try save(document.tree) } catch { throw EditError("could not save the change: \(error)") }
        }
        store = next
        publish(origin, changes, paths, summary: summary, takesBack: takesBack)
    }

    /// Tells every subscriber about the step just made; `summary` says what an undo or redo did
    /// (a new step's is the store's next undo); `takesBack`: an undo's changes are the step taken
    /// back (``ChangeEvent/takesBack``); `recorded`: an external change's recorded steps.
    func publish(
        _ origin: ChangeEvent.Origin, _ changes: [Change], _ paths: [TreePath], summary: String? = nil, takesBack: Bool = false,
        recorded: [EditStep] = []
    ) {
        revision += 1
        let history = store.history
        let said = summary ?? (origin == .apply ? history.undo ?? "" : "")
        let event = ChangeEvent(
            revision: revision, origin: origin, changes: changes, paths: paths, summary: said, history: history, source: store.snapshot,
            takesBack: takesBack, recorded: recorded)
        latest.value = (event.source, revision, history)
        for continuation in subscribers.values { continuation.yield(event) }
    }

    // MARK: Group commit

    /// Waits until a write holding the step just applied is on disk (at once without a storage),
    /// remembering its outcome under `key` meanwhile (forgotten again if the write fails, so the
    /// retry applies it).
    func written(_ changes: [Change]?, key: StepKey? = nil, paths: [TreePath] = [], record: HistoryRecord? = nil) async throws(EditError) {
        if let key { remember(StepOutcome(request: key.request, paths: paths), for: key) }
        do throws(EditError) {
            try await written(changes, record: record)
        } catch {
            if let key { keys.forget(key) }
            throw error
        }
    }

    /// Waits until a write holding the step just applied is on disk (at once without a storage).
    func written(_ changes: [Change]?, record: HistoryRecord? = nil) async throws(EditError) {
        guard storage != nil else {
            if let record { try appendRecord(record) }
            return
        }
        let failure = await withCheckedContinuation { (waiter: CheckedContinuation<EditError?, Never>) in
            unwritten.append(PendingStep(changes: changes, waiter: waiter, record: record))
            if !writing {
                writing = true
                Task { await self.writeLoop() }
            }
        }
        if let failure { throw failure }
    }

    /// Before a write that follows one holding several steps, waits until as many are waiting
    /// again, or for a quarter of that write's time (at most 50 ms), whichever comes first.
    /// Writers whose steps the last write acknowledged send their next ones a moment later;
    /// without the wait the next write would start with whichever came first and hold just that
    /// one, leaving the rest to the write after (batches of 1 and n - 1 in turn, half the
    /// throughput). A lone writer never waits, and a full group does not wait for the time limit.
    func gather() async {
        let expected = lastWrite.steps
        guard expected > 1, unwritten.count < expected else { return }
        let deadline = ContinuousClock.now + (gatherLimit ?? min(lastWrite.duration / 4, .milliseconds(50)))
        while unwritten.count < expected, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .microseconds(250))
        }
    }

    /// Writes until no step is waiting: each write holds every step applied before it started.
    func writeLoop() async {
        while !unwritten.isEmpty {
            await gather()
            guard let current = storage, let document = store as? EditableDocument else { break }
            await write(current: current, document: document)
        }
        writing = false
        let waiters = settledWaiters
        settledWaiters = []
        for waiter in waiters { waiter.resume() }
    }

    /// One write of every step waiting, and what follows from its outcome.
    func write(current: any DocumentStorage, document: EditableDocument) async {
        let batch = unwritten
        unwritten = []
        let tree = document.tree
        // The journal first: a record is durable before the data it describes is written.
        let begun: [HistoryRecord]
        do {
            begun = try historyLog.map { log in try log.begin(batch.compactMap(\.record)) } ?? []
        } catch {
            // Nothing is written: every step waiting fails, and the document goes back to what is on disk.
            let failure = EditError("could not record the change in the history: \(error)")
            for step in batch + unwritten { step.waiter.resume(returning: failure) }
            unwritten = []
            store = EditableDocument(source: document.source.reading(current.tree), schema: document.schema)
            publishExternal()
            return
        }
        let started = ContinuousClock.now
        // Off the model's queue and off Swift's cooperative threads: a slow disk holds neither.
        let (after, outcome) = await BlockingWork.run(label: "drilldown.document-write") { () -> (any DocumentStorage, Result<TreeStore?, any Error>) in
            var next = current
            let outcome = Result { try next.store(tree) }
            return (next, outcome)
        }
        lastWrite = (ContinuousClock.now - started, batch.count)
        storage = after
        if case .success(nil) = outcome {} else { try? historyLog?.finish(begun.map(\.id), written: false) }
        switch outcome {
        case .success(nil):
            try? historyLog?.finish(begun.map(\.id), written: true)
            writes += 1
            writtenSteps += batch.count
            for step in batch { step.waiter.resume(returning: nil) }
        case .success(let newer?):
            // Someone else wrote the file: apply every step not yet written to their version.
            let waiting = batch + unwritten
            unwritten = []
            var rebased = EditableDocument(
                source: document.source.reading(newer), schema: document.schema)
            for var step in waiting {
                guard let changes = step.changes else {
                    step.waiter.resume(returning: EditError("the file changed elsewhere before this undo or redo was saved; it was not applied to the newer version"))
                    continue
                }
                do {
                    let before = rebased.presented
                    let paths = try rebased.apply(changes)
                    if let record = step.record {
                        let author = HistoryAuthor(user: record.user, session: record.session, instance: record.instance)
                        step.record = HistoryRecord(changes, paths: paths, before: before, by: author, kind: record.kind, target: record.target)
                    }
                    unwritten.append(step)
                } catch {
                    step.waiter.resume(returning: EditError("the file changed elsewhere and this change no longer applies to it: \(error.description)", at: error.path))
                }
            }
            store = rebased
            publishExternal()
        case .failure(let error):
            let failure = EditError("could not save the change: \(error)")
            for step in batch + unwritten { step.waiter.resume(returning: failure) }
            unwritten = []
            store = EditableDocument(
                source: document.source.reading(after.tree), schema: document.schema)
            publishExternal()
        }
    }

    /// A refresh over a storage: reads the newer version when the file changed elsewhere (and no
    /// write is under way or waiting, which would notice it itself).
    func refreshStorage() throws(EditError) -> Bool {
        guard !writing, unwritten.isEmpty, var next = storage, let document = store as? EditableDocument else { return false }
        let newer: TreeStore?
        do { newer = try next.changes() } catch { throw EditError("could not read the changed file: \(error)") }
        storage = next
        guard let newer else { return false }
        store = EditableDocument(source: document.source.reading(newer), schema: document.schema)
        publishExternal()
        return true
    }
}

/// A value read and written under a lock: the model's latest snapshot, readable from any thread.
final class LatestSnapshot: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: (source: any Source, revision: Int, history: HistoryState)

    init(_ value: (source: any Source, revision: Int, history: HistoryState)) { stored = value }

    var value: (source: any Source, revision: Int, history: HistoryState) {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
