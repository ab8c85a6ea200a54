import DrillDownCore
import Foundation

/// The terminal's link to the ``DocumentModel`` it edits through: runs the browser's
/// ``EditRequest``s in the background, so a key never waits for a write while the screen must
/// answer, notes other writers' changes the model publishes, and why the data cannot be read
/// again; `notify` wakes the event loop for each. ``finish()`` waits for the edits under way.
/// Every edit is made as ``author``, so the model's history records who made it and Undo takes
/// back only their own steps.
final class ModelLink: @unchecked Sendable {
    let model: DocumentModel
    /// Who the edits are made by.
    let author: HistoryAuthor
    /// Done once the model keeps its history (before the first edit runs).
    private let ready: Task<Void, Never>
    let notify: @Sendable () -> Void
    /// What the user may do in a snapshot (`browse --user`); `nil`: everything.
    var access: (@Sendable (any Source) -> AccessView)?
    private let condition = NSCondition()
    private var done: [(EditRequest, EditRequest.Outcome)] = []
    private var running = 0
    private var changedElsewhere = false
    private var failure: String?
    private var reportedFailure: String?
    private var listener: Task<Void, Never>?

    init(model: DocumentModel, history: (any HistoryLog)? = nil, author: HistoryAuthor = HistoryAuthor(user: nil), notify: @escaping @Sendable () -> Void) {
        self.model = model
        self.author = author
        self.notify = notify
        ready = Task { [model] in if let history { await model.keepHistory(in: history) } }
        listener = Task { [weak self, model] in
            for await event in await model.changes() where event.origin == .external {
                self?.note { $0.changedElsewhere = true }
            }
        }
    }

    deinit { listener?.cancel() }

    /// Runs `request` on the model; its outcome comes back through ``take()``.
    func submit(_ request: EditRequest) {
        condition.withLock { running += 1 }
        Task { [self] in
            await ready.value
            let outcome = await HistoryAuthor.$current.withValue(author) { await request.run(on: model, access: access) }
            note {
                $0.done.append((request, outcome))
                $0.running -= 1
            }
        }
    }

    /// Asks the model whether following other writers failed (a file half written elsewhere).
    func checkFollowing() {
        Task { [self] in
            let failure = await model.refreshFailure?.description
            note { $0.failure = failure }
        }
    }

    /// What happened since the last call: the edits done, whether the data changed elsewhere, and
    /// why it cannot be read (once per new reason).
    func take() -> (done: [(EditRequest, EditRequest.Outcome)], changedElsewhere: Bool, unreadable: String?) {
        condition.withLock {
            defer { (done, changedElsewhere) = ([], false) }
            let unreadable = failure != reportedFailure ? failure : nil
            reportedFailure = failure
            return (done, changedElsewhere, unreadable)
        }
    }

    /// Waits until every submitted edit is stored (or failed).
    func finish() {
        condition.withLock { while running > 0 { condition.wait() } }
    }

    private func note(_ change: (ModelLink) -> Void) {
        condition.withLock {
            change(self)
            condition.broadcast()
        }
        notify()
    }
}
