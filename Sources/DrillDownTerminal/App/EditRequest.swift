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
    public func run(on model: DocumentModel) async -> Outcome {
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
