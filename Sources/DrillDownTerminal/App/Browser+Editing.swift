import DrillDownCore
import Foundation

/// Edits and controls (`--editable`): every edit becomes an ``EditRequest`` (core ``Change``s, an
/// action, a control, undo or redo) that the event loop runs on the ``DocumentModel``; once it is
/// done, ``Browser/finish(_:_:source:)`` rebuilds the screen on the new data with the selection on
/// the changed row.
extension Browser {
    /// The status line's answer to an edit key when browsing without `--editable`.
    public static let readOnlyMessage = "read-only: start with --editable"

    /// Handles the editing keys; returns `false` for a key that is not one (in this context).
    mutating func handleEditKey(_ key: Key) -> Bool {
        let inDetail = mode == .outline ? outlineDetail != nil : navigator.top.isDetail
        let id = currentNode
        let controls = id == source.root ? [] : presenter.row(for: id).controls
        switch key {
        case .character("a"), .character("r"), .character("d"), .character("J"), .character("K"),
            .character("u"), .character("U"), .control("r"), .character("e"):
            guard requireEditor() else { return true }
            switch key {
            case .character("e"): startEditingFields(id)
            case .character("a"): startAdding(inDetail: inDetail)
            case .character("r"): startRenaming(id)
            case .character("d"): startDeleting(id)
            case .character("J"): moveRow(id, by: 1)
            case .character("K"): moveRow(id, by: -1)
            case .character("u"): undo()
            default: redo()
            }
            return true
        case .character(" "):
            guard let control = controls.first(where: { $0.control.kind == .switch })?.control else { return false }
            if requireEditor() { operate(control, with: .toggle, on: id) }
            return true
        case .character("+"), .character("="), .character("-"):
            guard let control = controls.first(where: { $0.control.kind == .slider || $0.control.kind == .stepper })?.control else {
                if id != source.root { inform("“\(presenter.row(for: id).title)” has no slider or stepper") }
                return true
            }
            if requireEditor() { operate(control, with: .step(key == .character("-") ? -1 : 1), on: id) }
            return true
        case .character(let c) where c.isASCII && (c.wholeNumberValue ?? 0) >= 1:
            let buttons = controls.filter { $0.control.kind == .button }
            let n = (c.wholeNumberValue ?? 1) - 1
            guard n < buttons.count else { return false }
            if requireEditor() { operate(buttons[n].control, with: .press, on: id) }
            return true
        case .enter:
            guard id != source.root else { return false }
            let row = presenter.row(for: id)
            if case .action(let name) = row.select {
                if requireEditor() { run(name, on: id) }
                return true
            }
            guard let button = row.controls.first(where: { $0.control.kind == .button }), editor != nil else { return false }
            operate(button.control, with: .press, on: id)
            return true
        default:
            return false
        }
    }

    mutating func requireEditor() -> Bool {
        if editor != nil { return true }
        inform(Self.readOnlyMessage, error: true)
        return false
    }

    /// The level the current row (or the node of a detail view) belongs to and its index there; `nil` on the root.
    var currentPlace: (parent: NodeID, index: Int)? {
        let id = currentNode
        guard id != source.root, let parent = source.parent(of: id) else { return nil }
        return (parent, source.position(of: id))
    }

    mutating func startAdding(inDetail: Bool) {
        if inDetail {
            let id = currentNode
            guard source.childCount(of: id) == 0 else {
                inform("Go back to a list to add a row")
                return
            }
            prompt = .title(TitlePrompt(purpose: .add(parent: source.path(of: id), index: 0)))
            return
        }
        let parent: TreePath
        let index: Int
        if mode != .outline, case .level(let n) = navigator.top, presenter.rowCount(of: n) == 0 {
            parent = source.path(of: n)
            index = 0
        } else if let place = currentPlace {
            parent = source.path(of: place.parent)
            index = place.index + 1
        } else {
            parent = .root
            index = 0
        }
        prompt = .title(TitlePrompt(purpose: .add(parent: parent, index: index)))
    }

    mutating func startRenaming(_ id: NodeID) {
        guard id != source.root else {
            inform("The root has no title to rename")
            return
        }
        prompt = .title(TitlePrompt(purpose: .rename(source.path(of: id)), field: TextField(text: source.title(of: id))))
    }

    mutating func startDeleting(_ id: NodeID) {
        guard id != source.root else {
            inform("The root cannot be deleted")
            return
        }
        prompt = .confirmDelete(source.path(of: id))
    }

    mutating func handleTitlePrompt(_ p: TitlePrompt, key: Key) {
        var p = p
        switch key {
        case .escape, .control("c"):
            prompt = nil
        case .enter:
            prompt = nil
            let title = p.field.text
            switch p.purpose {
            case .add(let parent, let index):
                guard !title.isEmpty else {
                    inform("Nothing added: the title was empty")
                    return
                }
                apply([.insert(NewNode(title: title), parent: parent, index: index)], done: "Added “\(title)”", open: false)
            case .rename(let path):
                guard !title.isEmpty else {
                    inform("Not renamed: the title was empty")
                    return
                }
                apply([.updateTitle(path, title: title)], done: "Renamed to “\(title)”")
            }
        default:
            if p.field.edit(key) { prompt = .title(p) }
        }
    }

    mutating func handleConfirmDelete(_ path: TreePath, key: Key) {
        prompt = nil
        guard key == .character("y") || key == .character("Y") else {
            inform("Not deleted")
            return
        }
        let title = source.node(at: path).map { presenter.row(for: $0).title } ?? path.description
        apply([.delete(path)], done: "Deleted “\(title)”", focus: path)
    }

    mutating func moveRow(_ id: NodeID, by step: Int) {
        guard let place = currentPlace else {
            inform("Select a row to move")
            return
        }
        let target = place.index + step
        guard target >= 0, target < source.childCount(of: place.parent) else {
            inform(step > 0 ? "Already the last row" : "Already the first row")
            return
        }
        let parent = source.path(of: place.parent)
        apply([.move(source.path(of: id), parent: parent, index: target)], done: step > 0 ? "Moved down" : "Moved up")
    }

    mutating func operate(_ control: Control, with input: ControlInput, on id: NodeID) {
        let path = source.path(of: id)
        let what = control.kind == .button ? "Ran \(control.label)" : control.target
        request(.operate(control, input, at: path), done: what, focus: path, reports: control.kind == .button ? nil : control.target)
    }

    mutating func run(_ action: String, on id: NodeID) {
        let path = source.path(of: id)
        request(.run(action, at: path), done: "Ran \(action)", focus: path)
    }

    /// Asks for `changes` as one undoable step, shown with the selection on `focus` (default: the
    /// path the last change produced).
    mutating func apply(_ changes: [Change], done: String, focus: TreePath? = nil, open: Bool? = nil) {
        request(.changes(changes), done: done, focus: focus, open: open)
    }

    mutating func undo() { request(.undo, done: "Undid") }

    mutating func redo() { request(.redo, done: "Redid") }

    /// Asks the event loop to run `kind` on the model (see ``EditRequest``); keys wait until
    /// ``finish(_:_:source:)``. Refused while the file on disk cannot be read.
    mutating func request(
        _ kind: EditRequest.Kind, done: String, focus: TreePath? = nil, reports: String? = nil, open: Bool? = nil, form: FieldsPrompt? = nil
    ) {
        guard var editor, fileAllowsEdits() else { return }
        editor.serial += 1
        editor.pending = editor.serial
        self.editor = editor
        let detail = open ?? (mode == .outline ? outlineDetail != nil : navigator.top.isDetail)
        effects.append(.edit(EditRequest(serial: editor.serial, kind: kind, done: done, focus: focus, reports: reports, open: detail, form: form)))
    }

    /// Shows how `request` ended on `source` (the model's data now) with the selection on the
    /// changed row, then handles the keys that waited for it.
    public mutating func finish(_ request: EditRequest, _ outcome: EditRequest.Outcome, source latest: any Source) {
        guard var editor, editor.pending == request.serial else { return }
        editor.pending = nil
        let held = editor.held
        editor.held = []
        self.editor = editor
        switch outcome {
        case .applied(let paths):
            let focus = request.focus ?? paths.last ?? .root
            show(document: latest, focus: focus, open: request.open)
            var text = request.done
            if let key = request.reports, let id = source.node(at: focus), let value = source.attribute(key, of: id) {
                text = "\(presenter.row(for: id).title): \(key) = \(value.text)"
            }
            inform(text + " · u undo")
        case .moved(let step?):
            let undid = request.kind == .undo
            let focus = undid ? step.changes.first.map(Self.focus(undoing:)) : step.paths.last
            show(document: latest, focus: focus ?? .root, open: false)
            let what = step.summary.isEmpty ? ": " + step.changes.map(\.description).joined(separator: ", ") : " " + step.summary
            inform(request.done + what + (undid ? " · U redo" : ""))
        case .moved(nil):
            inform(request.kind == .undo ? "Nothing to undo" : "Nothing to redo")
        case .failed(let error):
            if let form = request.form { reopen(form, on: error) }
            inform(error.description, error: true)
        }
        for key in held { handle(key) }
    }

    /// Where the selection goes after undoing `change`: the restored row, or the row a move came from.
    static func focus(undoing change: Change) -> TreePath {
        switch change {
        case .insert(_, let parent, let index): parent.isRoot && index == nil ? .root : TreePath(parent.indices + [max(0, (index ?? 1) - 1)])
        case .move(let p, _, _): p
        default: change.path
        }
    }

    /// Reports that reading the file again after it changed failed (it may be half written by
    /// another program). The shown data stays, and edits are refused until the file reads again:
    /// saving now would put this older copy over the other program's change.
    public mutating func reloadFailed(_ description: String) {
        unreadableFile = description
        inform("The file changed on disk and cannot be read (\(description)); edits are off until it reads again", error: true)
    }

    /// Whether an edit may go ahead; when the file on disk cannot be read, says why not.
    mutating func fileAllowsEdits() -> Bool {
        guard let problem = unreadableFile else { return true }
        inform("Not changed: the file on disk cannot be read (\(problem)); fix or finish it first", error: true)
        return false
    }

    /// Shows a new version of the data after a change made elsewhere (read from the file, or the
    /// model's after another writer's step), keeping the current path (or the nearest that still
    /// exists) and mode.
    ///
    /// The path is followed level by level: at each level the row with the same title nearest to
    /// its old place; else, when the level kept its size (a rename), the row at its old place; else
    /// (the row was removed) the row now at its place, and the walk stops there.
    public mutating func reload(_ newPresenter: Presenter) {
        unreadableFile = nil
        let lineage = steps(to: currentNode)
        let detail = mode == .outline ? outlineDetail != nil : navigator.top.isDetail
        var closed = false
        if let open = prompt, open.refersToNodes {
            prompt = nil
            closed = true
        }
        matches = nil
        let indices = Self.follow(lineage, in: newPresenter.source, exactly: false) ?? []
        replace(presenter: newPresenter, focus: TreePath(indices), open: detail && indices.count == lineage.count)
        if message?.isError != true {
            inform(closed ? "Reloaded: the file changed, so the prompt was closed" : "Reloaded: the file changed")
        }
    }

    /// Where `id` is, level by level, for finding it again in another version of the tree.
    func steps(to id: NodeID) -> [LineageStep] {
        source.lineage(of: id).dropFirst().map {
            LineageStep(index: source.position(of: $0), title: source.title(of: $0), count: source.childCount(of: source.parent(of: $0) ?? source.root))
        }
    }

    /// The TreePath in `newSource` that `lineage` leads to: at each level the row with the same title
    /// nearest to its old place; else (unless `exactly`, which then gives `nil`), when the level
    /// kept its size (a rename), the row at its old place; else the row now at its place, ending the walk.
    /// - Complexity: O(depth) when every row is within one place of where it was, else O(width) per level searched.
    static func follow(_ lineage: [LineageStep], in newSource: any Source, exactly: Bool) -> [Int]? {
        var indices: [Int] = []
        var node = newSource.root
        for step in lineage {
            let children = newSource.children(of: node)
            guard !children.isEmpty else { return exactly ? nil : indices }
            let near = [step.index, step.index - 1, step.index + 1].filter { $0 >= 0 && $0 < children.count }
            let sameTitle =
                near.first { newSource.title(of: children[$0]) == step.title }.map { [$0] }
                ?? children.indices.filter { newSource.title(of: children[$0]) == step.title }
            if exactly, sameTitle.isEmpty { return nil }
            let index = sameTitle.min { abs($0 - step.index) < abs($1 - step.index) } ?? min(step.index, children.count - 1)
            indices.append(index)
            node = children[index]
            if sameTitle.isEmpty, children.count != step.count { break }
        }
        return indices
    }

    mutating func show(document: any Source, focus: TreePath, open: Bool) {
        replace(presenter: Presenter(source: document, schema: presenter.schema), focus: focus, open: open)
    }

    /// Swaps in a new presenter and shows `focus` (or, when it is gone, the row at the same index
    /// in the same level, or the nearest ancestor), keeping the mode, the outline's expanded rows
    /// and, where it still shows the selection, the scroll.
    mutating func replace(presenter given: Presenter, focus: TreePath, open: Bool) {
        var newPresenter = given
        if let access { newPresenter.access = access(newPresenter.source) }
        newPresenter = refiltered(newPresenter)
        let expanded = outline.expandedNodes.map { steps(to: $0) }
        let oldScroll = mode == .outline ? outlinePosition.scroll : positions[positions.count - 1].scroll
        presenter = newPresenter
        presenterGeneration += 1
        navigator = Navigator(presenter: newPresenter)
        positions = [ListPosition()]
        outline = Outline(presenter: newPresenter)
        outlineDetail = nil
        for lineage in expanded {
            if let indices = Self.follow(lineage, in: source, exactly: true), let id = source.node(at: TreePath(indices)) { outline.expand(id) }
        }
        var path = focus
        var exact = true
        var target = source.node(at: path)
        while target == nil, !path.isRoot {
            exact = false
            let parent = path.parent
            if let p = source.node(at: parent), let last = path.indices.last, source.childCount(of: p) > 0 {
                path = TreePath(parent.indices + [min(last, source.childCount(of: p) - 1)])
            } else {
                path = parent
            }
            target = source.node(at: path)
        }
        show(target ?? source.root, open: open && exact)
        if mode == .outline {
            var p = outlinePosition
            p.scroll = oldScroll
            p.reveal(count: outline.visibleCount, visible: listHeight)
            outlinePosition = p
        } else if case .level(let n) = navigator.top {
            var p = positions[positions.count - 1]
            p.scroll = oldScroll
            p.reveal(count: presenter.rowCount(of: n), visible: listHeight)
            setPosition(p)
        }
    }

    /// A row's buttons as the detail shows them, with the keys that press them: `↵/1 Play  2 Ping`.
    static func buttonsText(_ buttons: [BoundControl]) -> String {
        buttons.enumerated().map { ($0.offset == 0 ? "↵/1 " : "\($0.offset + 1) ") + $0.element.control.label }.joined(separator: "  ")
    }
}

/// One level of the way to a row: its index, its title, and how many rows its level had.
struct LineageStep {
    var index: Int
    var title: String
    var count: Int
}
