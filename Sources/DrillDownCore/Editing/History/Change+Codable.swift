/// A ``Change`` as JSON, as a history keeps it: `{"op": "title", "path": "0.3", "title": "Chime"}`;
/// paths are dotted TreePaths, scalars `{"kind": "integer", "text": "42"}`.
extension Change: Codable {
    private enum Key: String, CodingKey { case op, path, parent, index, title, key, value, node }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        let op = try c.decode(String.self, forKey: .op)
        switch op {
        case "insert":
            self = .insert(try c.decode(NewNode.self, forKey: .node), parent: try c.decode(TreePath.self, forKey: .parent), index: try c.decodeIfPresent(Int.self, forKey: .index))
        case "title":
            self = .updateTitle(try c.decode(TreePath.self, forKey: .path), title: try c.decode(String.self, forKey: .title))
        case "attribute":
            self = .setAttribute(try c.decode(TreePath.self, forKey: .path), key: try c.decode(String.self, forKey: .key), value: try c.decodeIfPresent(Scalar.self, forKey: .value))
        case "value":
            self = .setValue(try c.decode(TreePath.self, forKey: .path), value: try c.decode(Scalar.self, forKey: .value))
        case "delete":
            self = .delete(try c.decode(TreePath.self, forKey: .path))
        case "move":
            self = .move(try c.decode(TreePath.self, forKey: .path), parent: try c.decode(TreePath.self, forKey: .parent), index: try c.decodeIfPresent(Int.self, forKey: .index))
        default:
            throw DecodingError.dataCorruptedError(forKey: .op, in: c, debugDescription: "unknown change '\(op)': expected insert, title, attribute, value, delete or move")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        switch self {
        case .insert(let node, let parent, let index):
            try c.encode("insert", forKey: .op)
            try c.encode(node, forKey: .node)
            try c.encode(parent, forKey: .parent)
            try c.encodeIfPresent(index, forKey: .index)
        case .updateTitle(let path, let title):
            try c.encode("title", forKey: .op)
            try c.encode(path, forKey: .path)
            try c.encode(title, forKey: .title)
        case .setAttribute(let path, let key, let value):
            try c.encode("attribute", forKey: .op)
            try c.encode(path, forKey: .path)
            try c.encode(key, forKey: .key)
            try c.encode(value, forKey: .value)
        case .setValue(let path, let value):
            try c.encode("value", forKey: .op)
            try c.encode(path, forKey: .path)
            try c.encode(value, forKey: .value)
        case .delete(let path):
            try c.encode("delete", forKey: .op)
            try c.encode(path, forKey: .path)
        case .move(let path, let parent, let index):
            try c.encode("move", forKey: .op)
            try c.encode(path, forKey: .path)
            try c.encode(parent, forKey: .parent)
            try c.encodeIfPresent(index, forKey: .index)
        }
    }
}

extension NewNode: Codable {
    private enum Key: String, CodingKey { case title, attributes, value }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        self.init(
            title: try c.decode(String.self, forKey: .title), attributes: try c.decodeIfPresent([Attribute].self, forKey: .attributes) ?? [],
            value: try c.decodeIfPresent(Scalar.self, forKey: .value))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(title, forKey: .title)
        if !attributes.isEmpty { try c.encode(attributes, forKey: .attributes) }
        try c.encodeIfPresent(value, forKey: .value)
    }
}

extension Attribute: Codable {
    private enum Key: String, CodingKey { case key, kind, text }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        let value = try Scalar(from: decoder)
        self.init(key: try c.decode(String.self, forKey: .key), value: value)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(key, forKey: .key)
        try value.encode(to: encoder)
    }
}

extension Scalar: Codable {
    private enum Key: String, CodingKey { case kind, text }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        let name = try c.decode(String.self, forKey: .kind)
        guard let kind = ValueKind.allCases.first(where: { $0.description == name }), !kind.isContainer else {
            throw DecodingError.dataCorruptedError(forKey: .kind, in: c, debugDescription: "unknown scalar kind '\(name)'")
        }
        self.init(kind, try c.decode(String.self, forKey: .text))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(kind.description, forKey: .kind)
        try c.encode(text, forKey: .text)
    }
}

extension TreePath: Codable {
    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        let text = try c.decode(String.self)
        guard let path = TreePath(text) else {
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "'\(text)' is not a TreePath (expected dotted indices such as 3.0.1)")
        }
        self = path
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(description)
    }
}
