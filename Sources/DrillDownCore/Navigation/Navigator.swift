/// The drill-down stack: push a level per selected row, pop back, pop to root, deep link.
///
/// The root screen is titled "Root" (or the document's / schema's title); a pushed level is titled
/// with the selected row's title; the back label is the previous screen's title; a row without
/// children opens its detail view.
///
/// ```swift
/// var nav = Navigator(presenter: presenter)
/// nav.select(3)           // Item 4
/// nav.title               // "Item 4"
/// nav.backLabel           // "Root"
/// ```
public struct Navigator: Sendable {
    /// Rows, titles and what selecting does; ``narrowing(_:)`` replaces it over the same data.
    public private(set) var presenter: Presenter
    /// The screens from the root (first) to the visible one (last).
    public private(set) var stack: [Screen]

    /// Starts at the root level.
    public init(presenter: Presenter) {
        self.presenter = presenter
        self.stack = [.level(presenter.source.root)]
    }

    var source: any Source { presenter.source }

    /// Shows the same data through `presenter` (a level filtered or sorted anew), keeping the stack.
    /// - Precondition: `presenter` presents the same source.
    public mutating func narrowing(_ presenter: Presenter) {
        self.presenter = presenter
    }

    /// The visible screen.
    public var top: Screen { stack[stack.count - 1] }

    /// The visible screen's title.
    public var title: String { presenter.screenTitle(of: top.node) }

    /// The back button's label: the previous screen's title; `nil` at the root.
    public var backLabel: String? {
        stack.count < 2 ? nil : presenter.screenTitle(of: stack[stack.count - 2].node)
    }

    /// The visible node's TreePath.
    public var path: TreePath { source.path(of: top.node) }

    /// `(title, path)` of every screen from the root to the visible one.
    public var breadcrumbs: [(title: String, path: TreePath)] {
        stack.map { (presenter.screenTitle(of: $0.node), source.path(of: $0.node)) }
    }

    /// The screen that selecting `id` opens, following its template.
    public func destination(of id: NodeID) -> SelectionOutcome {
        let row = presenter.row(for: id)
        switch row.select {
        case .drill: return row.childCount > 0 ? .pushedLevel(id) : .pushedDetail(id)
        case .detail: return .pushedDetail(id)
        case .action(let name): return .action(name, id)
        case .none: return .none
        }
    }

    /// Selects the row at display position `index` of the visible level (sorted levels show
    /// their rows in the sort's order).
    @discardableResult
    public mutating func select(_ index: Int) -> SelectionOutcome {
        guard case .level(let node) = top else { return .none }
        guard let child = presenter.child(of: node, at: index) else { return .none }
        let outcome = destination(of: child)
        switch outcome {
        case .pushedLevel(let id): stack.append(.level(id))
        case .pushedDetail(let id): stack.append(.detail(id))
        case .action, .none: break
        }
        return outcome
    }

    /// Opens the detail view of the row at display position `index` (its accessory button).
    public mutating func showDetail(_ index: Int) {
        guard case .level(let node) = top else { return }
        guard let child = presenter.child(of: node, at: index) else { return }
        stack.append(.detail(child))
    }

    /// Goes back one screen; returns `false` at the root.
    @discardableResult
    public mutating func pop() -> Bool {
        guard stack.count > 1 else { return false }
        stack.removeLast()
        return true
    }

    /// Goes back to the root level.
    public mutating func popToRoot() { stack.removeSubrange(1...) }

    /// Opens `id` directly with the whole back chain above it, as a deep link does: a level when
    /// the node drills, its detail otherwise (or always with `detail: true`).
    public mutating func open(_ id: NodeID, detail: Bool = false) {
        let chain = source.lineage(of: id)
        stack = chain.dropLast().map { .level($0) }
        if detail || (id != source.root && destination(of: id) != .pushedLevel(id)) {
            stack.append(.detail(id))
        } else {
            stack.append(.level(id))
        }
    }

    /// Opens the node at `path` (see ``open(_:detail:)``); returns `false` when there is none.
    @discardableResult
    public mutating func open(_ path: TreePath, detail: Bool = false) -> Bool {
        guard let id = source.node(at: path) else { return false }
        open(id, detail: detail)
        return true
    }
}
