import Foundation

/// The shared, observable document behind every open view (seed 004's model objects): one
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
public actor DocumentModel {
    /// Where the data lives: a document in memory, or a database store that commits each step.
    public private(set) var store: any EditingStore
    /// The number of steps applied, undone or redone so far, and of changes picked up from other writers.
    public private(set) var revision = 0
    var actions: ActionSet
    let save: (@Sendable (TreeStore) throws -> Void)?
    var subscribers: [Int: AsyncStream<ChangeEvent>.Continuation] = [:]
    var nextSubscriber = 0

    /// Creates a model over an in-memory document.
    /// - Parameters:
    ///   - actions: the actions rows can run (usually `try ActionSet(schema: schema)`).
    ///   - save: persists the tree after each step (the core knows nothing of files).
    public init(document: EditableDocument, actions: ActionSet = ActionSet(), save: (@Sendable (TreeStore) throws -> Void)? = nil) {
        self.store = document
        self.actions = actions
        self.save = save
    }

    /// Creates a model over any store (a database store persists each step itself).
    public init(store: any EditingStore, actions: ActionSet = ActionSet()) {
        self.store = store
        self.actions = actions
        self.save = nil
    }

    deinit {
        for continuation in subscribers.values { continuation.finish() }
    }

    /// The current data: an immutable snapshot.
    public var source: any Source { store.snapshot }

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
    @discardableResult
    public func apply(_ change: Change) throws(EditError) -> TreePath { try apply([change])[0] }

    /// Applies changes as one undoable step (all or nothing); returns each one's path.
    @discardableResult
    public func apply(_ changes: [Change]) throws(EditError) -> [TreePath] {
        var next = store
        let paths = try next.apply(changes)
        try commit(next, .apply, changes, paths)
        return paths
    }

    /// Undoes the latest step; returns it, or `nil` when there is nothing to undo.
    @discardableResult
    public func undo() throws(EditError) -> EditStep? {
        var next = store
        guard let step = try next.undo() else { return nil }
        try commit(next, .undo, step.changes, step.paths)
        return step
    }

    /// Redoes the latest undone step; returns it, or `nil` when there is nothing to redo.
    @discardableResult
    public func redo() throws(EditError) -> EditStep? {
        var next = store
        guard let step = try next.redo() else { return nil }
        try commit(next, .redo, step.changes, step.paths)
        return step
    }

    /// Picks up changes other writers made (see ``EditingStore/refresh()``) and, when there are
    /// any, publishes an ``ChangeEvent/Origin/external`` event; returns whether there were.
    @discardableResult
    public func refresh() throws(EditError) -> Bool {
        var next = store
        guard try next.refresh() else { return false }
        store = next
        publish(.external, [], [])
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
                await self.refreshNoting()
            }
        }
    }

    /// Why the latest ``watch(every:)`` refresh failed, if it did.
    public private(set) var refreshFailure: EditError?

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
    public func run(_ action: String, at path: TreePath) throws(EditError) -> [TreePath] {
        try apply(try actions.changes(for: action, at: path, in: store.snapshot))
    }

    /// Operates a row control on the node at `path` as one step; returns the affected paths.
    @discardableResult
    public func operate(_ control: Control, with input: ControlInput, at path: TreePath) throws(EditError) -> [TreePath] {
        try apply(try actions.changes(operating: control, with: input, at: path, in: store.snapshot))
    }

    /// Registers (or replaces) an action implemented in code; see ``ActionSet/register(_:_:)``.
    public func registerAction(_ name: String, _ handler: @escaping ActionHandler) { actions.register(name, handler) }

    func commit(_ next: any EditingStore, _ origin: ChangeEvent.Origin, _ changes: [Change], _ paths: [TreePath]) throws(EditError) {
        if let save, let document = next as? EditableDocument {
            do { try save(document.tree) } catch { throw EditError("could not save the change: \(error)") }
        }
        store = next
        publish(origin, changes, paths)
    }

    func publish(_ origin: ChangeEvent.Origin, _ changes: [Change], _ paths: [TreePath]) {
        revision += 1
        let event = ChangeEvent(revision: revision, origin: origin, changes: changes, paths: paths, source: store.snapshot)
        for continuation in subscribers.values { continuation.yield(event) }
    }
}
