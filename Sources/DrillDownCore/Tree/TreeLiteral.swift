/// A document written as a Swift value, for building small trees in code (tests, previews, examples).
///
/// ```swift
/// let tree = TreeLiteral.object([
///     ("Rows", .array([.row("Item 1", [.row("Screen A")])])),
/// ]).tree
/// ```
public indirect enum TreeLiteral: Sendable {
    /// A dictionary with its entries in order.
    case object([(String, TreeLiteral)])
    /// An array.
    case array([TreeLiteral])
    /// A string scalar.
    case string(String)
    /// An integer scalar.
    case int(Int)
    /// A boolean scalar.
    case bool(Bool)
    /// A null.
    case null
    /// Any scalar given as its kind and text (reals, dates, data, or numbers as written).
    case scalar(ValueKind, String)

    /// A row dictionary of the outline convention: `Title`, then `extra` attributes, then `Children` if any.
    public static func row(_ title: String, _ children: [TreeLiteral] = [], _ extra: [(String, TreeLiteral)] = []) -> TreeLiteral {
        var members: [(String, TreeLiteral)] = [("Title", .string(title))]
        members += extra
        if !children.isEmpty { members.append(("Children", .array(children))) }
        return .object(members)
    }

    /// The tree this value describes.
    /// - Complexity: O(n)
    public var tree: TreeStore {
        var builder = TreeBuilder()
        emit(into: &builder, key: nil)
        return builder.build()
    }

    /// Emits this value (and everything below it) as builder events, keyed `key` in its parent object.
    public func emit(into b: inout TreeBuilder, key: String?) {
        b.beginNode()
        if let key { b.appendText(key) }
        b.endKey()
        switch self {
        case .object(let members):
            b.openContainer(.object)
            for (k, v) in members { v.emit(into: &b, key: k) }
            b.closeContainer()
        case .array(let items):
            b.openContainer(.array)
            for v in items { v.emit(into: &b, key: nil) }
            b.closeContainer()
        case .string(let s):
            b.appendText(s)
            b.finishScalar(.string)
        case .int(let i):
            b.appendText(String(i))
            b.finishScalar(.integer)
        case .bool(let v):
            b.appendText(v ? "true" : "false")
            b.finishScalar(.bool)
        case .null:
            b.finishScalar(.null)
        case .scalar(let kind, let text):
            b.appendText(text)
            b.finishScalar(kind)
        }
    }
}
