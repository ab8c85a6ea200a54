import DrillDownCore

/// One edit the browser asks for (``Browser/Effect/edit(_:)``): the event loop runs it on the
/// ``DocumentModel`` with ``run(on:)`` and hands the outcome back to ``Browser/finish(_:_:source:)``.
///
/// The browser holds the keys that follow until then, so each key acts on the data as the edit
/// before it left it.
public struct EditRequest: Sendable, Equatable {
    /// What to do, in the model's terms.
    public enum Kind: Sendable, Equatable {
        /// Apply these changes as one step.
        case changes([Change])
        /// Run the schema's action on the row at the path.
        case run(String, at: TreePath)
        /// Operate a row control on the row at the path.
        case operate(Control, ControlInput, at: TreePath)
        /// Undo the latest step.
        case undo
        /// Redo the latest undone step.
        case redo
    }

    /// Numbers the browser's requests.
    public var serial: Int
    /// What to do.
    public var kind: Kind
    /// The status line's text once it is done.
    var done: String
    /// The row to select afterwards (default: the path the step's last change produced).
    var focus: TreePath?
    /// The attribute whose new value the status line shows (a switch's or slider's).
    var reports: String?
    /// Whether the row's detail stays open.
    var open: Bool
    /// The form the step came from, opened again (on the refused field) when the model refuses it.
    var form: FieldsPrompt?

    /// How a request ended.
    public enum Outcome: Sendable {
        /// Applied and saved; the paths the step affected.
        case applied([TreePath])
        /// Undone or redone (`nil`: there was nothing to undo or redo).
        case moved(EditStep?)
        /// Refused or not saved (nothing of it is in the data).
        case failed(EditError)
    }

    /// Runs the request on `model` and waits until the step is stored (see ``DocumentModel/apply(_:key:)``).
    /// With `access` (`browse --user`), a request the user may not make fails with the
    /// ``AccessError``'s message and changes nothing.
    public func run(on model: DocumentModel, access: (@Sendable (any Source) -> AccessView)? = nil) async -> Outcome {
        if let access {
            let source = model.versionedSource.source
            let view = access(source)
            do {
                switch kind {
                case .changes(let changes): try view.requireChanges(changes, in: source)
                case .run(_, let path), .operate(_, _, let path): try view.requireChange(at: path, titled: source.node(at: path).map { source.titlePath(of: $0) })
                case .undo: try view.requireChangeEverywhere("undo")
                case .redo: try view.requireChangeEverywhere("redo")
                }
            } catch {
                return .failed(EditError(error.message, at: error.at))
            }
        }
        do {
            switch kind {
            case .changes(let changes): return .applied(try await model.apply(changes))
            case .run(let action, let path): return .applied(try await model.run(action, at: path))
            case .operate(let control, let input, let path): return .applied(try await model.operate(control, with: input, at: path))
            case .undo: return .moved(try await model.undo())
            case .redo: return .moved(try await model.redo())
            }
        } catch {
            return .failed(error)
        }
    }
}
