import DrillDownCore
import Yams

/// Turns a composed YAML node graph into builder events.
struct YAMLConverter {
    var builder: TreeBuilder
    /// How many more nodes may be produced (aliases are expanded per use).
    var budget: Int

    init(budget: Int, bytes: Int) {
        self.budget = budget
        builder = TreeBuilder(expectedNodes: bytes / 16 + 16, expectedTextBytes: bytes / 2 + 16)
        builder.beginNode()
        builder.endKey()
    }

    /// Emits `node` as the current node (its key, if any, already ended).
    mutating func value(_ node: Node) throws(ParseFailure) {
        budget -= 1
        guard budget >= 0 else {
            throw located(node, "aliases expand to too many nodes; refusing to expand the document further")
        }
        switch node {
        case .scalar(let scalar):
            try self.scalar(scalar, node: node)
        case .sequence(let sequence):
            builder.openContainer(.array)
            for element in sequence {
                builder.beginNode()
                builder.endKey()
                try value(element)
            }
            builder.closeContainer()
        case .mapping(let mapping):
            builder.openContainer(.object)
            for (key, element) in try members(of: mapping, node: node) {
                builder.beginNode()
                builder.appendText(key)
                builder.endKey()
                try value(element)
            }
            builder.closeContainer()
        case .alias:
            throw located(node, "unresolved alias")
        }
    }

    /// The members of a mapping with merge keys (`<<`) applied: explicit keys win, then earlier merged mappings.
    func members(of mapping: Node.Mapping, node: Node) throws(ParseFailure) -> [(String, Node)] {
        var result: [(String, Node)] = []
        var merged: [Node] = []
        for (key, element) in mapping {
            guard case .scalar(let keyScalar) = key else {
                throw located(key, "mapping keys must be scalars; found a mapping or sequence used as a key")
            }
            // Yams resolves key tags while checking for duplicates, so a merge key is known by its plain text.
            if keyScalar.style == .plain && keyScalar.string == "<<" {
                switch element {
                case .mapping: merged.append(element)
                case .sequence(let list): merged.append(contentsOf: list)
                default: throw located(element, "a merge key '<<' needs a mapping or a list of mappings")
                }
                continue
            }
            result.append((keyScalar.string, element))
        }
        guard !merged.isEmpty else { return result }
        var seen = Set(result.map(\.0))
        for source in merged {
            guard case .mapping(let extra) = source else {
                throw located(source, "a merge key '<<' needs a mapping or a list of mappings")
            }
            for (key, element) in try members(of: extra, node: source) where !seen.contains(key) {
                seen.insert(key)
                result.append((key, element))
            }
        }
        return result
    }

    /// The tag of a scalar: its explicit tag, or for an untagged plain scalar the one its text
    /// resolves to (quoted and block scalars are strings).
    static func tag(of scalar: Node.Scalar) -> String {
        let explicit = scalar.tag.rawValue
        if !explicit.isEmpty { return explicit == "!" ? Tag.Name.str.rawValue : explicit }
        guard scalar.style == .plain || scalar.style == .any else { return Tag.Name.str.rawValue }
        switch YAMLPlainScalar.resolve(scalar.string) {
        case .null: return Tag.Name.null.rawValue
        case .bool: return Tag.Name.bool.rawValue
        case .int: return Tag.Name.int.rawValue
        case .float: return Tag.Name.float.rawValue
        case .timestamp: return Tag.Name.timestamp.rawValue
        case .merge, .string: return Tag.Name.str.rawValue
        }
    }

    mutating func scalar(_ scalar: Node.Scalar, node: Node) throws(ParseFailure) {
        let text = scalar.string
        switch Self.tag(of: scalar) {
        case Tag.Name.int.rawValue:
            builder.appendText(YAMLNumbers.integer(text) ?? text)
            builder.finishScalar(.integer)
        case Tag.Name.float.rawValue:
            guard let real = YAMLNumbers.real(text) else { throw located(node, "invalid float '\(text)'") }
            builder.appendText(real)
            builder.finishScalar(.real)
        case Tag.Name.bool.rawValue:
            let value = ["true", "yes", "on", "y"].contains(text.lowercased())
            builder.appendText(value ? "true" : "false")
            builder.finishScalar(.bool)
        case Tag.Name.null.rawValue:
            builder.finishScalar(.null)
        case Tag.Name.timestamp.rawValue:
            if text.utf8.count > 10, let date = PropertyListDate.normalize(text.utf8) {
                builder.appendText(date)
                builder.finishScalar(.date)
            } else {
                builder.appendText(text)
                builder.finishScalar(.string)
            }
        case Tag.Name.binary.rawValue:
            guard let data = Base64.normalize(text.utf8) else { throw located(node, "invalid base64 in !!binary value") }
            data.withUnsafeBufferPointer { builder.appendText($0) }
            builder.finishScalar(.data)
        default:
            builder.appendText(text)
            builder.finishScalar(.string)
        }
    }

    func located(_ node: Node, _ message: String) -> ParseFailure {
        var failure = ParseFailure(offset: 0, message)
        if let mark = node.mark { failure.knownLocation = (mark.line, mark.column) }
        return failure
    }
}
