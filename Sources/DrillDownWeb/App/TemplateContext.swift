/// A value a template shows (`{{name}}`, `{{{name}}}`) or tests (`{{#name}}`, `{{^name}}`).
enum TemplateValue {
    /// Text, escaped by `{{name}}`.
    case text(String)
    /// Markup, copied as it is by `{{{name}}}`.
    case html(HTML)
    case int(Int)
    /// A flag: a section shows when it is true, an inverted section when it is false.
    case bool(Bool)
    /// Named values: a section shows once, looking names up here first.
    case object(TemplateContext)
    /// A section shows once per element (an inverted one when there is none).
    case list([TemplateValue])
    /// Markup written straight into the page where `{{{name}}}` stands (a level's rows: no copy).
    case writer((inout HTML) -> Void)

    /// `value` as the pages' `[String: Any]` contexts hold it: `String`, ``HTML``, `Bool`, `Int`,
    /// dictionaries, arrays and other collections, optionals (`nil` for `Optional.none`); anything
    /// else as the text `String(describing:)` writes, as swift-mustache prints it.
    init?(any value: Any) {
        var value = value
        if let optional = value as? any AnyOptional {
            guard let wrapped = optional.wrappedValue else { return nil }
            value = wrapped
        }
        switch value {
        case let s as String: self = .text(s)
        case let html as HTML: self = .html(html)
        case let b as Bool: self = .bool(b)
        case let n as Int: self = .int(n)
        case let d as [String: Any]: self = .object(TemplateContext(d))
        case let items as [Any]: self = .list(items.compactMap { TemplateValue(any: $0) })
        default:
            let mirror = Mirror(reflecting: value)
            if mirror.displayStyle == .collection || mirror.displayStyle == .set {
                self = .list(mirror.children.compactMap { TemplateValue(any: $0.value) })
            } else {
                self = .text(String(describing: value))
            }
        }
    }

    /// The value as swift-mustache is given it (``Assets/renderWithMustache(_:_:)``, the reference).
    var any: Any {
        switch self {
        case .text(let s): s
        case .html(let html): html
        case .int(let n): n
        case .bool(let b): b
        case .object(let c): c.dictionary
        case .list(let items): items.map(\.any)
        case .writer(let write): Self.written(write)
        }
    }

    static func written(_ write: (inout HTML) -> Void) -> HTML {
        var out = HTML(capacity: 4096)
        write(&out)
        return out
    }
}

/// The values a template is rendered with, by ``TemplateName``: a short list searched by number
/// (a page's context holds some thirty names), built by the page and read by ``PageTemplates``.
///
/// ```swift
/// var c = TemplateContext()
/// c[.title] = .text("Music")
/// c[.pager] = .object(["from": .int(1), "to": .int(100)])
/// ```
struct TemplateContext: ExpressibleByDictionaryLiteral {
    private var names: [Int] = []
    private var values: [TemplateValue] = []

    init() {}

    init(dictionaryLiteral elements: (TemplateName, TemplateValue)...) {
        names.reserveCapacity(elements.count)
        values.reserveCapacity(elements.count)
        for (name, value) in elements { self[name] = value }
    }

    /// The entries of a `[String: Any]` context (see ``TemplateValue/init(any:)``).
    init(_ dictionary: [String: Any]) {
        for (key, value) in dictionary {
            if let value = TemplateValue(any: value) { self[TemplateName(key)] = value }
        }
    }

    /// The value of `name`; setting `nil` removes it.
    subscript(name: TemplateName) -> TemplateValue? {
        get { value(of: name.id) }
        set {
            let k = names.firstIndex(of: name.id)
            switch (k, newValue) {
            case (let k?, let value?): values[k] = value
            case (let k?, nil):
                names.remove(at: k)
                values.remove(at: k)
            case (nil, let value?):
                names.append(name.id)
                values.append(value)
            case (nil, nil): break
            }
        }
    }

    /// The value of the name numbered `id` (the renderer's lookup).
    @inline(__always)
    func value(of id: Int) -> TemplateValue? {
        var k = 0
        while k < names.count {
            if names[k] == id { return values[k] }
            k += 1
        }
        return nil
    }

    /// `other`'s entries set here, replacing those of the same names.
    mutating func merge(_ other: TemplateContext) {
        for (k, id) in other.names.enumerated() { self[TemplateName(id: id)] = other.values[k] }
    }

    /// The context as swift-mustache is given it.
    var dictionary: [String: Any] {
        var d: [String: Any] = [:]
        for (k, id) in names.enumerated() { d[TemplateName(id: id).description] = values[k].any }
        return d
    }
}

/// An `Optional` of any type, so ``TemplateValue/init(any:)`` can look inside one held as `Any`.
protocol AnyOptional {
    var wrappedValue: Any? { get }
}

extension Optional: AnyOptional {
    var wrappedValue: Any? { map { $0 as Any } }
}
