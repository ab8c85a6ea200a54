import DrillDownCore
@testable import DrillDownFormats
import Foundation

/// A plain recursive picture of a tree, for building fixtures and comparing stores in tests.
indirect enum TreeValue: Equatable, CustomStringConvertible {
    case object([(String, TreeValue)])
    case array([TreeValue])
    case scalar(ValueKind, String)

    static func string(_ s: String) -> TreeValue { .scalar(.string, s) }
    static func integer(_ s: String) -> TreeValue { .scalar(.integer, s) }
    static func real(_ s: String) -> TreeValue { .scalar(.real, s) }
    static func bool(_ b: Bool) -> TreeValue { .scalar(.bool, b ? "true" : "false") }
    static let null = TreeValue.scalar(.null, "")

    static func == (a: TreeValue, b: TreeValue) -> Bool {
        switch (a, b) {
        case let (.object(x), .object(y)): x.count == y.count && zip(x, y).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        case let (.array(x), .array(y)): x == y
        case let (.scalar(k1, t1), .scalar(k2, t2)):
            k1 == k2 && (t1 == t2 || (k1 == .real && Double(t1) != nil && Double(t1) == Double(t2)))
        default: false
        }
    }

    /// The tree as a store.
    var store: TreeStore {
        var builder = TreeBuilder()
        builder.beginNode()
        builder.endKey()
        emit(into: &builder)
        return builder.build()
    }

    private func emit(into builder: inout TreeBuilder) {
        switch self {
        case .object(let members):
            builder.openContainer(.object)
            for (key, value) in members {
                builder.beginNode()
                builder.appendText(key)
                builder.endKey()
                value.emit(into: &builder)
            }
            builder.closeContainer()
        case .array(let elements):
            builder.openContainer(.array)
            for value in elements {
                builder.beginNode()
                builder.endKey()
                value.emit(into: &builder)
            }
            builder.closeContainer()
        case .scalar(let kind, let text):
            builder.appendText(text)
            builder.finishScalar(kind)
        }
    }

    /// The store's tree as a value.
    init(_ tree: TreeStore, _ id: NodeID? = nil) {
        let node = id ?? tree.root
        switch tree.kind(of: node) {
        case .object: self = .object(tree.children(of: node).map { (tree.key(of: $0) ?? "", TreeValue(tree, $0)) })
        case .array: self = .array(tree.children(of: node).map { TreeValue(tree, $0) })
        default: self = .scalar(tree.kind(of: node), String(decoding: tree.valueBytes(of: node), as: UTF8.self))
        }
    }

    /// The value with every scalar passed through `transform` (to model a format's kind mapping).
    func mapScalars(_ transform: (ValueKind, String) -> (ValueKind, String)) -> TreeValue {
        switch self {
        case .object(let members): .object(members.map { ($0.0, $0.1.mapScalars(transform)) })
        case .array(let elements): .array(elements.map { $0.mapScalars(transform) })
        case .scalar(let kind, let text):
            { let (k, t) = transform(kind, text); return .scalar(k, t) }()
        }
    }

    /// The first difference between two values, as a path and a description, or `nil`.
    func difference(from other: TreeValue, path: String = "") -> String? {
        switch (self, other) {
        case let (.object(x), .object(y)):
            if x.count != y.count { return "\(path): \(x.count) members vs \(y.count): \(x.map(\.0)) vs \(y.map(\.0))" }
            for (a, b) in zip(x, y) {
                if a.0 != b.0 { return "\(path): key \(a.0.debugDescription) vs \(b.0.debugDescription)" }
                if let d = a.1.difference(from: b.1, path: path + "/" + a.0) { return d }
            }
            return nil
        case let (.array(x), .array(y)):
            if x.count != y.count { return "\(path): \(x.count) elements vs \(y.count)" }
            for (i, (a, b)) in zip(x, y).enumerated() {
                if let d = a.difference(from: b, path: path + "/\(i)") { return d }
            }
            return nil
        default:
            return self == other ? nil : "\(path): \(self) vs \(other)"
        }
    }

    var description: String {
        switch self {
        case .object(let m): "{" + m.map { "\($0.0.debugDescription): \($0.1)" }.joined(separator: ", ") + "}"
        case .array(let a): "[" + a.map(\.description).joined(separator: ", ") + "]"
        case .scalar(let k, let t): "\(k)(\(t.debugDescription))"
        }
    }
}

extension TreeValue {
    /// The data of `Examples/Data.plist`: a root dictionary with `Rows`, Item 1–4, Screen A–J.
    static let seed: TreeValue = {
        func row(_ title: String, _ children: [TreeValue] = []) -> TreeValue {
            var members: [(String, TreeValue)] = [("Title", .string(title))]
            if !children.isEmpty { members.append(("Children", .array(children))) }
            return .object(members)
        }
        return .object([("Rows", .array([
            row("Item 1", [row("Screen A")]),
            row("Item 2", [row("Screen B", [row("Screen C")])]),
            row("Item 3", [row("Screen D", [row("Screen E", [row("Screen F")])])]),
            row("Item 4", [row("Screen G", [row("Screen H", [row("Screen I", [row("Screen J")])])])]),
        ]))])
    }()
}

/// A small deterministic random number generator (SplitMix64) for property tests.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Random trees: nested objects and arrays, strings with quotes, escapes, newlines and non-ASCII,
/// integers, reals, bools, and (optionally) nulls, dates and data.
struct RandomTrees {
    var rng: SeededGenerator
    var allowNull = true
    var allowDatesAndData = true
    /// Whether strings may hold control characters (XML 1.0 cannot, so other XML readers reject them).
    var allowControlCharacters = true

    static let pieces = ["a", "Title", "x y", "\"", "\\", "\n", "\t", "é", "東京", "😀", "true", "42", "-1.5", "null", "yes",
                         "2001-01-01", "#", ": ", "- ", "[", "{", "&", "<", ">", "'", "=", ";", "\u{7}", "/", "*", " ", "~", "\r\n"]

    mutating func string() -> String {
        let n = Int.random(in: 0 ... 4, using: &rng)
        let pieces = allowControlCharacters ? Self.pieces : Self.pieces.filter { !$0.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" && $0 != "\t" } }
        return (0 ..< n).map { _ in pieces.randomElement(using: &rng)! }.joined()
    }

    mutating func scalar() -> TreeValue {
        switch Int.random(in: 0 ..< (allowDatesAndData ? 9 : 7), using: &rng) {
        case 0, 1: return .string(string())
        case 2: return .integer(String(Int64.random(in: -1_000_000_000_000 ... 1_000_000_000_000, using: &rng)))
        case 3: return .real(String(Double(Int.random(in: -100_000 ... 100_000, using: &rng)) / 64))
        case 4: return .bool(Bool.random(using: &rng))
        case 5: return allowNull ? .null : .string(string())
        case 6: return .string(string() + string())
        case 7: return .scalar(.date, PropertyListDate.text(sinceReferenceDate: Double(Int.random(in: -2_000_000_000 ... 2_000_000_000, using: &rng))))
        default:
            let bytes = (0 ..< Int.random(in: 0 ... 20, using: &rng)).map { _ in UInt8.random(in: 0 ... 255, using: &rng) }
            var out: [UInt8] = []
            bytes.withUnsafeBufferPointer { Base64.encode($0, into: &out) }
            return .scalar(.data, String(decoding: out, as: UTF8.self))
        }
    }

    mutating func value(depth: Int = 0) -> TreeValue {
        let roll = Int.random(in: 0 ..< 10, using: &rng)
        if depth >= 5 || (depth > 0 && roll < 5) { return scalar() }
        let count = Int.random(in: 0 ... 5, using: &rng)
        if roll % 2 == 0 {
            var seen = Set<String>()
            var members: [(String, TreeValue)] = []
            for _ in 0 ..< count {
                let key = string()
                guard seen.insert(key).inserted else { continue }
                members.append((key, value(depth: depth + 1)))
            }
            return .object(members)
        }
        return .array((0 ..< count).map { _ in value(depth: depth + 1) })
    }
}

/// `bytes` damaged one to three times: a byte removed, replaced or inserted (from `specials`), or
/// the rest cut off, as a truncated or hand-mangled file would be.
func damaged(_ bytes: [UInt8], with specials: [UInt8], _ rng: inout SeededGenerator) -> [UInt8] {
    var bytes = bytes
    for _ in 0 ..< Int.random(in: 1 ... 3, using: &rng) where !bytes.isEmpty {
        let i = Int.random(in: 0 ..< bytes.count, using: &rng)
        switch Int.random(in: 0 ..< 4, using: &rng) {
        case 0: bytes.remove(at: i)
        case 1: bytes[i] = specials.randomElement(using: &rng)!
        case 2: bytes.insert(specials.randomElement(using: &rng)!, at: i)
        default: bytes.removeLast(bytes.count - i)
        }
    }
    return bytes
}
