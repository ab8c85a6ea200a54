import DrillDownCore
import Yams

/// Reads YAML into a ``TreeStore`` through Yams (libyaml): the composed node graph is turned into
/// builder events. Plain scalars are typed by ``YAMLPlainScalar`` (the same rules as Yams' default
/// resolver, without a regular expression per scalar).
///
/// Scalars take the kind of their resolved YAML 1.1 tag: `int` (decimal, `0x`, `0o`, `0b`,
/// underscores — stored as decimal text), `float` (`.inf`, `.nan` stored as `inf`, `nan`),
/// `bool` (`yes`/`on`/`true`… stored as `true`/`false`), `null`, `timestamp` (a `.date` when it
/// is a full ISO 8601 date-time, else a string), `!!binary` (`.data`); everything else is a
/// string. Merge keys (`<<: *base`) are applied. Aliases are expanded, up to a node budget that
/// stops "billion laughs" documents.
///
/// A stream must hold exactly one document: a second `---` document is an error (silently
/// dropping it would be a partial load), and so is an empty stream.
///
/// - Complexity: O(n) in the input size plus the size of expanded aliases.
enum YAMLReader {
    static func read(_ input: UnsafeBufferPointer<UInt8>) throws(ParseFailure) -> TreeStore {
        try UTF16Transcoding.withUTF8(input) { (buffer) throws(ParseFailure) -> TreeStore in
            if let bad = UTF8Validation.firstInvalidOffset(in: buffer) {
                throw ParseFailure(offset: bad, "invalid UTF-8 byte 0x\(String(buffer[bad], radix: 16, uppercase: true)); YAML documents must be UTF-8")
            }
            let text = String(decoding: buffer, as: UTF8.self)
            let root: Node?
            do {
                root = try Yams.compose(yaml: text, .basic)
            } catch let error as YamlError {
                throw failure(error, text: text, buffer: buffer)
            } catch {
                throw ParseFailure(offset: 0, "\(error)")
            }
            guard let root else { throw ParseFailure(offset: buffer.count, "empty document; expected a YAML value") }
            var converter = YAMLConverter(budget: max(200_000, buffer.count * 8), bytes: buffer.count)
            try converter.value(root)
            guard converter.builder.text.count < Int(UInt32.max) else {
                throw ParseFailure(offset: 0, "document too large: more than 4 GiB of text")
            }
            return converter.builder.build()
        }
    }

    /// A ``ParseFailure`` at the position libyaml reported, with its problem and context.
    static func failure(_ error: YamlError, text: String, buffer: UnsafeBufferPointer<UInt8>) -> ParseFailure {
        func located(_ mark: Mark, _ message: String) -> ParseFailure {
            var failure = ParseFailure(offset: 0, message)
            failure.knownLocation = (mark.line, mark.column)
            return failure
        }
        func describe(_ context: YamlError.Context?, _ problem: String) -> String {
            guard let context else { return problem }
            return "\(problem) (\(context.text) at \(context.mark.line):\(context.mark.column))"
        }
        switch error {
        case let .scanner(context, problem, mark, _), let .parser(context, problem, mark, _):
            return located(mark, describe(context, problem))
        case let .composer(context, problem, mark, _):
            if problem == "but found another document" {
                return located(mark, "a second YAML document starts here; expected a single document")
            }
            return located(mark, describe(context, problem))
        case let .reader(problem, offset, _, _):
            let characters = offset ?? 0
            let utf8Offset = text.utf8.distance(
                from: text.startIndex, to: text.index(text.startIndex, offsetBy: characters, limitedBy: text.endIndex) ?? text.endIndex)
            return ParseFailure(offset: utf8Offset, problem)
        case let .duplicatedKeysInMapping(duplicates, context):
            let keys = duplicates.map { "'\($0)'" }.joined(separator: ", ")
            return located(context.mark, "duplicate key \(keys) in mapping")
        default:
            return ParseFailure(offset: 0, "\(error)")
        }
    }
}

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

/// YAML 1.1 number spellings as canonical ``TreeStore`` text.
enum YAMLNumbers {
    /// Decimal text of a YAML int (`0x1F`, `0o17`, `017`, `0b101`, `1_000`, `1:30`); `nil` if out of range.
    static func integer(_ raw: String) -> String? {
        var text = Substring(raw.filter { $0 != "_" })
        var negative = false
        if text.first == "-" || text.first == "+" {
            negative = text.first == "-"
            text = text.dropFirst()
        }
        var magnitude: UInt64?
        if text.hasPrefix("0x") {
            magnitude = UInt64(text.dropFirst(2), radix: 16)
        } else if text.hasPrefix("0b") {
            magnitude = UInt64(text.dropFirst(2), radix: 2)
        } else if text.hasPrefix("0o") {
            magnitude = UInt64(text.dropFirst(2), radix: 8)
        } else if text.count > 1 && text.hasPrefix("0") {
            magnitude = UInt64(text.dropFirst(), radix: 8)
        } else if text.contains(":") {
            var total: UInt64 = 0
            for part in text.split(separator: ":") {
                guard let v = UInt64(part) else { return nil }
                total = total * 60 + v
            }
            magnitude = total
        } else {
            return PropertyListNumbers.integer((negative ? "-" : "") + text)
        }
        guard let magnitude else { return nil }
        return (negative && magnitude != 0 ? "-" : "") + String(magnitude)
    }

    /// Canonical text of a YAML float (`1_000.5`, `.5`, `+1e3`, `.inf`, `.NaN`, `1:30.5`).
    static func real(_ raw: String) -> String? {
        let text = raw.filter { $0 != "_" }
        if let canonical = PropertyListNumbers.real(text) { return canonical }
        guard text.contains(":") else { return nil }
        var negative = false
        var body = Substring(text)
        if body.first == "-" || body.first == "+" {
            negative = body.first == "-"
            body = body.dropFirst()
        }
        var total = 0.0
        for part in body.split(separator: ":") {
            guard let v = Double(part) else { return nil }
            total = total * 60 + v
        }
        return PropertyListNumbers.spelling(of: negative ? -total : total)
    }
}
