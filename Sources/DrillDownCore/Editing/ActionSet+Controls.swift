import Foundation

/// What the user did to a control inside a row.
public enum ControlInput: Sendable, Equatable {
    /// Flip a switch.
    case toggle
    /// Set the control to a value as typed or posted by a form: `on`/`off`/`true`/`false` for a
    /// switch, a number for a slider or stepper.
    case set(String)
    /// Move a stepper (or slider) by this many steps, e.g. `+1` or `-1`.
    case step(Int)
    /// Press a button.
    case press
}

extension ActionSet {
    /// The changes operating `control` on the node at `path` makes: a switch sets its boolean
    /// attribute, a slider or stepper sets its number clamped to `min…max` and rounded to `step`
    /// (counted from `min`), a button runs its action.
    ///
    /// ```swift
    /// let volume = Control(kind: .slider, target: "volume", label: "volume", min: 0, max: 100, step: 5)
    /// try actions.changes(operating: volume, with: .set("73"), at: [0, 2], in: source)
    /// // [.setAttribute([0, 2], key: "volume", value: 75)]
    /// ```
    public func changes(
        operating control: Control, with input: ControlInput, at path: TreePath, in document: any Source, now: Date = Date()
    ) throws(EditError) -> [Change] {
        guard let id = document.node(at: path) else { throw EditError("no node at TreePath \(path)", at: path) }
        let key = control.target
        switch (control.kind, input) {
        case (.button, .press):
            return try changes(for: control.target, at: path, in: document, now: now)
        case (.switch, .toggle):
            return [Self.toggling(key, of: id, at: path, in: document)]
        case (.switch, .set(let text)):
            guard let on = Scalar(.string, text).bool else {
                throw EditError("a switch is on or off, not '\(text)'", at: path)
            }
            return [.setAttribute(path, key: key, value: Scalar(.bool, on ? "true" : "false"))]
        case (.slider, .set(let text)), (.stepper, .set(let text)):
            guard let number = Double(text.trimmingCharacters(in: .whitespaces)), number.isFinite else {
                throw EditError("\(control.kind.rawValue) '\(key)' needs a number, not '\(text)'", at: path)
            }
            return [.setAttribute(path, key: key, value: Scalar(number: control.fitted(number)))]
        case (.slider, .step(let steps)), (.stepper, .step(let steps)):
            let current = document.attribute(key, of: id)?.number ?? control.min
            return [.setAttribute(path, key: key, value: Scalar(number: control.fitted(current + Double(steps) * control.step)))]
        default:
            throw EditError("a \(control.kind.rawValue) does not take \(input)", at: path)
        }
    }
}

extension Control {
    /// `value` clamped to `min…max` and rounded to the nearest `step` counted from `min`.
    ///
    /// ```swift
    /// Control(kind: .slider, target: "volume", label: "", min: 0, max: 100, step: 5).fitted(123)  // 100
    /// ```
    public func fitted(_ value: Double) -> Double {
        let low = Swift.min(min, max), high = Swift.max(min, max)
        var v = Swift.min(Swift.max(value, low), high)
        if step > 0 {
            v = low + ((v - low) / step).rounded() * step
            if v > high { v -= step }
            v = (v * 1e9).rounded() / 1e9
        }
        return Swift.min(Swift.max(v, low), high)
    }
}
