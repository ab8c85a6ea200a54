import DrillDownCore
@testable import DrillDownFormats
import Foundation
import Testing

@Suite("Seed data and round trips")
struct SeedAndRoundTripTests {
    static let seedJSON = """
        {"Rows": [
          {"Title": "Item 1", "Children": [{"Title": "Screen A"}]},
          {"Title": "Item 2", "Children": [{"Title": "Screen B", "Children": [{"Title": "Screen C"}]}]},
          {"Title": "Item 3", "Children": [{"Title": "Screen D", "Children": [{"Title": "Screen E", "Children": [{"Title": "Screen F"}]}]}]},
          {"Title": "Item 4", "Children": [{"Title": "Screen G", "Children": [{"Title": "Screen H", "Children": [
            {"Title": "Screen I", "Children": [{"Title": "Screen J"}]}]}]}]}
        ]}
        """

    static let seedYAML = """
        # Examples/Data.plist
        Rows:
        - Title: Item 1
          Children:
          - Title: Screen A
        - Title: Item 2
          Children:
          - Title: Screen B
            Children: [{Title: Screen C}]
        - Title: Item 3
          Children:
          - Title: Screen D
            Children:
            - Title: Screen E
              Children:
              - Title: Screen F
        - Title: "Item 4"
          Children:
          - Title: Screen G
            Children:
            - Title: Screen H
              Children:
              - Title: Screen I
                Children:
                - Title: 'Screen J'
        """

    static let seedOpenStep = """
        {
            Rows = (
                { Title = "Item 1"; Children = ( { Title = "Screen A"; } ); },
                { Title = "Item 2"; Children = ( { Title = "Screen B"; Children = ( { Title = "Screen C"; } ); } ); },
                { Title = "Item 3"; Children = ( { Title = "Screen D"; Children = ( { Title = "Screen E";
                    Children = ( { Title = "Screen F"; } ); } ); } ); },
                { Title = "Item 4"; Children = ( { Title = "Screen G"; Children = ( { Title = "Screen H";
                    Children = ( { Title = "Screen I"; Children = ( { Title = "Screen J"; } ); } ); } ); } ); }
            );
        }
        """

    /// `Examples/Data.plist` as Foundation writes it, in `format`.
    static func foundationSeed(_ format: PropertyListSerialization.PropertyListFormat) throws -> [UInt8] {
        let object = try JSONSerialization.jsonObject(with: Data(seedJSON.utf8))
        return Array(try PropertyListSerialization.data(fromPropertyList: object, format: format, options: 0))
    }

    @Test("Examples/Data.plist reads to the same tree in every format")
    func seedInEveryFormat() throws {
        let inputs: [(String, [UInt8])] = [
            ("Data.json", Array(Self.seedJSON.utf8)),
            ("Data.yaml", Array(Self.seedYAML.utf8)),
            ("Data.strings", Array(Self.seedOpenStep.utf8)),
            ("Data.plist", try Self.foundationSeed(.xml)),
            ("Data.bplist", try Self.foundationSeed(.binary)),
        ]
        for (name, bytes) in inputs {
            let (tree, _) = try DocumentReader.read(bytes: bytes, file: name)
            let value = TreeValue(tree)
            let expected = TreeValue.seed
            // Foundation's dictionaries have no order: compare its files with keys sorted.
            let comparable = name.hasSuffix("plist") ? TreeValue.sortedKeys(expected) : expected
            let read = name.hasSuffix("plist") ? TreeValue.sortedKeys(value) : value
            #expect(read.difference(from: comparable) == nil, "\(name): \(read.difference(from: comparable) ?? "")")
            let source = DocumentSource(tree: tree)
            #expect(source.children(of: source.root).map { source.title(of: $0) } == ["Item 1", "Item 2", "Item 3", "Item 4"], "\(name)")
        }
    }

    @Test("Examples/Data.plist round-trips through every writer", arguments: DocumentFormat.treeFormats)
    func seedRoundTrip(_ format: DocumentFormat) throws {
        #expect(try roundTrip(TreeValue.seed, format) == TreeValue.seed)
    }

    @Test("random trees round-trip through every writer", arguments: DocumentFormat.treeFormats)
    func randomRoundTrips(_ format: DocumentFormat) throws {
        var trees = RandomTrees(rng: SeededGenerator(seed: 2024 &+ UInt64(format.hashValue & 0xFF)))
        trees.rng = SeededGenerator(seed: 2024)
        trees.allowNull = !format.isPropertyList
        // XML 1.0 cannot hold control characters at all (the writer refuses them, naming the node).
        trees.allowControlCharacters = format != .plistXML
        for i in 0 ..< 300 {
            let value = trees.value()
            let back = try roundTrip(value, format)
            let want = expected(value, in: format)
            #expect(back == want, "tree \(i) in \(format): \(back.difference(from: want) ?? "")")
            if back != want { break }
        }
    }

    @Test("writers write what readers read, kind for kind", arguments: DocumentFormat.treeFormats)
    func writerThenReaderKeepsKinds(_ format: DocumentFormat) throws {
        var value = TreeValue.object([
            ("string", .string("true")), ("integer", .integer("-9007199254740993")), ("real", .real("0.1")),
            ("whole", .real("3")), ("bool", .bool(false)), ("date", .scalar(.date, "2030-06-15T08:00:00Z")),
            ("data", .scalar(.data, "SGVsbG8=")), ("empty", .string("")), ("unicode", .string(format == .plistXML ? "é東😀\r" : "é東😀\u{0}")),
        ])
        if !format.isPropertyList, case .object(var members) = value {
            members.append(("null", .null))
            value = .object(members)
        }
        #expect(try roundTrip(value, format) == expected(value, in: format))
    }

    @Test("random trees we write as JSON, Foundation's JSONSerialization parses")
    func jsonThroughFoundation() throws {
        var trees = RandomTrees(rng: SeededGenerator(seed: 5))
        for _ in 0 ..< 200 {
            let value = trees.value()
            let bytes = try DocumentWriter.data(value.store, format: .json)
            let parsed = try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
            #expect(Self.foundation(parsed, equals: expected(value, in: .json)), "\(value) as JSON: \(String(decoding: bytes, as: UTF8.self))")
        }
    }

    /// Whether a JSONSerialization value holds the same data as `value`.
    static func foundation(_ any: Any, equals value: TreeValue) -> Bool {
        switch value {
        case .object(let members):
            guard let dictionary = any as? [String: Any], dictionary.count == members.count else { return false }
            return members.allSatisfy { key, member in dictionary[key].map { foundation($0, equals: member) } ?? false }
        case .array(let elements):
            guard let array = any as? [Any], array.count == elements.count else { return false }
            return zip(array, elements).allSatisfy { foundation($0, equals: $1) }
        case .scalar(let kind, let text):
            switch kind {
            case .string: return any as? String == text
            case .null: return any is NSNull
            case .bool: return (any as? NSNumber)?.boolValue == (text == "true") && !(any is String)
            case .integer: return (any as? NSNumber).map { $0.int64Value == Int64(text) } ?? false
            case .real: return (any as? NSNumber).map { $0.doubleValue == Double(text) } ?? false
            default: return false
            }
        }
    }

    @Test("JSON is written pretty with two-space indent and escapes")
    func jsonPretty() throws {
        let value = TreeValue.object([("a", .array([.integer("1"), .object([])])), ("q\"", .string("line\nbreak\u{1}")), ("n", .null)])
        #expect(String(decoding: try DocumentWriter.data(value.store, format: .json), as: UTF8.self) == """
            {
              "a": [
                1,
                {}
              ],
              "q\\"": "line\\nbreak\\u0001",
              "n": null
            }

            """)
    }

    @Test("a real with no JSON spelling is a write error")
    func jsonInfinity() {
        let error = #expect(throws: FormatError.self) { try DocumentWriter.data(TreeValue.array([.real("inf")]).store, format: .json) }
        #expect(error?.message == "JSON has no number inf (at TreePath 0 (0))")
    }

    @Test("deep trees write without recursion", arguments: DocumentFormat.treeFormats)
    func deepWrite(_ format: DocumentFormat) throws {
        var value = TreeValue.string("leaf")
        for _ in 0 ..< (format == .yaml ? 500 : 1_000) { value = .array([value]) }
        let bytes = try DocumentWriter.data(value.store, format: format)
        let tree = try DocumentReader.read(bytes: bytes, file: "deep", format: format).tree
        #expect(tree.maxDepth() == (format == .yaml ? 500 : 1_000))
    }
}
