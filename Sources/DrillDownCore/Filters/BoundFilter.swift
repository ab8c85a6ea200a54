import Foundation

/// A ``Filter`` bound to the fields of the rows it is asked of: each value read once as its
/// field's type (`6:00` as 360 seconds for a duration, `2024-05-01` for a date), so matching a
/// row compares cheap values. A database store reads ``tests`` to write its `WHERE`.
public struct BoundFilter: Sendable, Hashable, CustomStringConvertible {
    /// The filter as written.
    public let filter: Filter
    /// The filter's shape with each condition bound.
    public let root: Node

    /// The bound filter's shape.
    public indirect enum Node: Sendable, Hashable {
        case test(Test)
        case and([Node])
        case or([Node])
    }

    /// One condition with its values typed.
    public struct Test: Sendable, Hashable {
        /// The field's key as the level spells it (`title` for the row's title).
        public var key: String
        /// The comparison.
        public var op: FilterOperator
        /// The values, typed (none for `exists`).
        public var operands: [Operand]
        /// The field's type, when the level declares or infers one.
        public var type: FieldType?
        /// Whether the field is the row's title (`title`, or the title's own field).
        public var isTitle: Bool
        /// The key lowered, as UTF-8 (a document's members are matched by it without lowering per row).
        public var loweredKey: [UInt8] = []
    }

    /// A value read as its field's type.
    public enum Operand: Sendable, Hashable {
        /// A number (integers, reals, durations in seconds, booleans as 0 and 1).
        case number(Double)
        /// Text compared as written (`=`, `<`), or folded for `~`.
        case text(String)
        /// An ISO 8601 date or date-time (`2024-05-01`); a day matches every time of that day.
        case date(String)

        /// The operand as a database binds it.
        public var text: String {
            switch self {
            case .number(let n): n == n.rounded() && abs(n) < 1e15 ? String(Int64(n)) : String(n)
            case .text(let t), .date(let t): t
            }
        }
    }

    /// Fields every row has: its title and its kind (the schema's).
    public static let implied: Set<String> = ["title", "kind"]

    /// Binds `filter` to `fields` (matched ASCII case-insensitively; `title` always exists).
    /// - Parameter lenient: accept fields not in `fields`, typing their values by how they read
    ///   (searching at any depth, where rows of every kind meet).
    /// - Throws: a ``FilterError`` at the field or value that does not fit.
    public init(_ filter: Filter, fields: [Field], lenient: Bool = false) throws(FilterError) {
        self.filter = filter
        var byKey: [String: Field] = [:]
        for f in fields where byKey[f.key.lowercased()] == nil { byKey[f.key.lowercased()] = f }
        let whole = filter.description
        func bind(_ f: Filter) throws(FilterError) -> Node {
            switch f {
            case .and(let parts): return .and(try parts.map { p throws(FilterError) in try bind(p) })
            case .or(let parts): return .or(try parts.map { p throws(FilterError) in try bind(p) })
            case .condition(let c):
                return .test(try Self.bind(c, byKey, lenient: lenient, expression: c.expression.isEmpty ? whole : c.expression, known: fields))
            }
        }
        root = try bind(filter)
    }

    static func bind(_ c: Filter.Condition, _ byKey: [String: Field], lenient: Bool, expression: String, known: [Field]) throws(FilterError) -> Test {
        let lowered = c.field.lowercased()
        let field = byKey[lowered]
        if field == nil, !lenient, !implied.contains(lowered) {
            let names = known.map(\.key).filter { $0.lowercased() != "kind" }
            throw FilterError(
                "unknown field '\(c.field)'" + (names.isEmpty ? "" : "; this level has \((["title"] + names).joined(separator: ", "))"),
                column: c.fieldColumn, expression: expression)
        }
        let key = field?.key ?? (lowered == "title" ? "title" : c.field)
        let type = field?.isTitle == true ? FieldType.text : field?.type
        var operands: [Operand] = []
        for (value, column) in zip(c.values, c.valueColumns) {
            if c.op == .contains {
                operands.append(.text(Self.fold(value)))
                continue
            }
            guard let operand = Self.operand(value, type: type, op: c.op) else {
                let expected = type?.expectation ?? "a value"
                throw FilterError("'\(field?.label ?? key)' takes \(expected), not '\(value)'", column: column, expression: expression)
            }
            operands.append(operand)
        }
        return Test(
            key: key, op: c.op, operands: operands, type: type, isTitle: lowered == "title" || field?.isTitle == true,
            loweredKey: Array(key.lowercased().utf8))
    }

    /// `value` read as `type` (by how it reads when the type is unknown); `nil` when it is not one.
    static func operand(_ value: String, type: FieldType?, op: FilterOperator) -> Operand? {
        let t = value.trimmingCharacters(in: .whitespaces)
        switch type {
        case .integer?, .number?:
            return Double(t).flatMap { $0.isFinite ? .number($0) : nil }
        case .duration?:
            return Field.seconds(t).map { .number(Double($0)) }
        case .boolean?:
            switch t.lowercased() {
            case "true", "yes", "on", "1": return .number(1)
            case "false", "no", "off", "0": return .number(0)
            default: return nil
            }
        case .date?:
            return ISO8601Text.date(t).map { .date(Self.day(of: t, $0)) }
        case .text?, .choice?, .url?, .data?:
            // Dates are often kept as text: a typed day then matches every time of that day.
            if t.count >= 10, t.first?.isNumber == true, let d = ISO8601Text.date(t) { return .date(Self.day(of: t, d)) }
            return .text(value)
        case nil:
            if let n = Double(t), n.isFinite { return .number(n) }
            if t.contains(":"), let s = Field.seconds(t) { return .number(Double(s)) }
            if let d = ISO8601Text.date(t) { return .date(Self.day(of: t, d)) }
            return .text(value)
        }
    }

    /// A typed day stays a day (`2024-05-01` matches every time of that day).
    static func day(of typed: String, _ normalized: String) -> String { typed.count == 10 ? String(normalized.prefix(10)) : normalized }

    /// Text folded for `~`: case, accents and width ignored.
    public static func fold(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil).lowercased()
    }

    public var description: String { filter.description }
    public static func == (a: BoundFilter, b: BoundFilter) -> Bool { a.filter == b.filter }
    public func hash(into hasher: inout Hasher) { hasher.combine(filter) }

    // MARK: Matching

    /// Whether a row matches, reading each test's field as raw text with `value` (`nil`: the
    /// row lacks it).
    public func matches(_ value: (Test) -> String?) -> Bool { Self.matches(root, value) }

    static func matches(_ node: Node, _ value: (Test) -> String?) -> Bool {
        switch node {
        case .and(let parts): return parts.allSatisfy { matches($0, value) }
        case .or(let parts): return parts.contains { matches($0, value) }
        case .test(let t): return t.matches(value(t))
        }
    }

    /// The tests, left to right.
    public var tests: [Test] {
        func walk(_ n: Node) -> [Test] {
            switch n {
            case .test(let t): [t]
            case .and(let parts), .or(let parts): parts.flatMap(walk)
            }
        }
        return walk(root)
    }
}

extension BoundFilter.Test {
    /// Whether a row whose field reads `raw` (`nil`: absent) passes.
    public func matches(_ raw: String?) -> Bool {
        guard let raw else { return false }
        switch op {
        case .exists: return true
        case .contains: return BoundFilter.fold(raw).contains(operands.first?.text ?? "")
        case .oneOf: return operands.contains { compare(raw, $0) == .orderedSame }
        default:
            guard let operand = operands.first, let order = compare(raw, operand) else { return false }
            return passes(order)
        }
    }

    /// Whether a value ordered `order` against the operand passes this test's comparison.
    func passes(_ order: ComparisonResult) -> Bool {
        switch op {
        case .equal: order == .orderedSame
        case .notEqual: order != .orderedSame
        case .less: order == .orderedAscending
        case .lessOrEqual: order != .orderedDescending
        case .greater: order == .orderedDescending
        case .greaterOrEqual: order != .orderedAscending
        case .contains, .oneOf, .exists: false
        }
    }

    /// Whether every operand is a number and the test compares them (a row's number can then be
    /// tested with ``matches(number:)`` rather than as text).
    public var comparesNumbers: Bool {
        op != .contains && op != .exists && !operands.isEmpty && operands.allSatisfy { if case .number = $0 { true } else { false } }
    }

    /// Whether a row whose field holds the number `v` passes, as ``matches(_:)`` decides on its
    /// text; `nil` when the test does not compare numbers (``comparesNumbers``).
    public func matches(number v: Double) -> Bool? {
        guard comparesNumbers else { return nil }
        func order(_ n: Double) -> ComparisonResult { v < n ? .orderedAscending : v > n ? .orderedDescending : .orderedSame }
        if op == .oneOf { return operands.contains { if case .number(let n) = $0 { order(n) == .orderedSame } else { false } } }
        guard case .number(let n) = operands[0] else { return nil }
        return passes(order(n))
    }

    /// How `raw` compares with `operand`; `nil` when they cannot be compared (text for a number).
    func compare(_ raw: String, _ operand: BoundFilter.Operand) -> ComparisonResult? {
        switch operand {
        case .number(let n):
            let v: Double?
            if let d = Double(raw) {
                v = d
            } else if type == .boolean || raw == "true" || raw == "false" {
                v = raw == "true" ? 1 : raw == "false" ? 0 : nil
            } else {
                v = Field.seconds(raw).map(Double.init)
            }
            guard let v else { return type == nil ? textOrder(raw, operand.text) : nil }
            return v < n ? .orderedAscending : v > n ? .orderedDescending : .orderedSame
        case .date(let d):
            if raw.hasPrefix(d) { return .orderedSame }
            return textOrder(raw, d)
        case .text(let t):
            return textOrder(raw, t)
        }
    }

    func textOrder(_ a: String, _ b: String) -> ComparisonResult {
        a == b ? .orderedSame : a < b ? .orderedAscending : .orderedDescending
    }
}
