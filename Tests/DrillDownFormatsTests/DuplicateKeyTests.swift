import DrillDownCore
@testable import DrillDownFormats
import Foundation
import Testing

/// Issue 28, item 6: one rule for duplicate keys. Every reader refuses an object that repeats a
/// key, naming the key and where it is; every writer refuses a tree that has one.
@Suite("Duplicate keys")
struct DuplicateKeyTests {
    /// A binary property list of one dictionary whose key objects are `keys` (by index into
    /// `strings`) and whose values are the integers 0, 1, ….
    static func bplist(strings: [String], keys: [Int]) -> [UInt8] {
        var objects: [[UInt8]] = []
        let n = keys.count
        objects.append([0xD0 | UInt8(n)] + keys.map { UInt8(1 + $0) } + (0 ..< n).map { UInt8(1 + strings.count + $0) })
        for s in strings { objects.append([0x50 | UInt8(s.utf8.count)] + Array(s.utf8)) }
        for i in 0 ..< n { objects.append([0x10, UInt8(i)]) }
        var out = Array("bplist00".utf8)
        var offsets: [Int] = []
        for o in objects {
            offsets.append(out.count)
            out += o
        }
        let table = out.count
        for o in offsets { out.append(UInt8(o)) }
        out += [0, 0, 0, 0, 0, 0, 1, 1]
        for v in [objects.count, 0, table] { out += (0 ..< 8).reversed().map { UInt8(truncatingIfNeeded: v >> ($0 * 8)) } }
        return out
    }

    @Test("JSON refuses a repeated key at its line and column, in both readers, small and large objects, escapes decoded")
    func json() {
        let cases: [(String, Int, Int, String)] = [
            (#"{"a": 1, "b": 2, "a": 3}"#, 1, 18, "duplicate key 'a' in object (first at 1:2)"),
            ("{\n  \"x\": {\"k\": [1, {\"a\": 1, \"\\u0061\": 2}]}\n}", 2, 27, "duplicate key 'a' in object (first at 2:19)"),
            ("{" + (0 ..< 40).map { "\"k\($0)\": \($0)" }.joined(separator: ", ") + #", "k7": 0}"#, 1, 422, "duplicate key 'k7' in object (first at 1:65)"),
            (#"[{"": 1, "": 2}]"#, 1, 10, "duplicate key '' in object"),
        ]
        for (text, line, column, message) in cases {
            let error = readError(text, as: .json, file: "d.json")
            #expect(error?.line == line && error?.column == column, "\(String(describing: error))")
            #expect(error?.message.contains(message) == true, "\(String(describing: error))")
        }
        #expect(throws: Never.self) { try read(#"{"a": {"a": {"a": 1}}, "b": [{"a": 1}, {"a": 2}], "A": 3}"#, as: .json) }
    }

    @Test("the other formats refuse it too: XML, binary and OpenStep property lists, YAML")
    func otherFormats() {
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0">
            <dict>
            \t<key>a</key>
            \t<integer>1</integer>
            \t<key>a</key>
            \t<integer>3</integer>
            </dict>
            </plist>
            """
        let x = readError(xml, as: .plistXML, file: "d.plist")
        #expect(x?.line == 6 && x?.column == 2 && x?.message.contains("duplicate key 'a' in <dict> (first at 4:2)") == true, "\(String(describing: x))")
        let o = readError("{ a = 1; b = { c = 2; }; a = 3; }", as: .plistOpenStep, file: "d.strings")
        #expect(o?.line == 1 && o?.column == 26 && o?.message.contains("duplicate key 'a' in dictionary (first at 1:3)") == true, "\(String(describing: o))")
        let strings = readError("\"k\" = \"v\";\n\"k\";\n", as: .plistOpenStep, file: "Localizable.strings")
        #expect(strings?.line == 2 && strings?.message.contains("duplicate key 'k'") == true, "\(String(describing: strings))")
        let y = readError("a: 1\nb: 2\na: 3\n", as: .yaml, file: "d.yaml")
        #expect(y?.line == 3 && y?.message.contains("duplicate key 'a'") == true, "\(String(describing: y))")
        // The same key object twice, and two equal key objects.
        for keys in [[0, 0], [0, 1]] {
            let b = readError(bytes: Self.bplist(strings: ["a", "a"], keys: keys), as: .plistBinary, file: "d.bplist")
            #expect(b?.line == nil && b?.message.contains("duplicate key 'a' in the dictionary at byte offset 8 (its members 0 and 1)") == true,
                    "\(String(describing: b))")
        }
        #expect(throws: Never.self) { try read(bytes: Self.bplist(strings: ["a", "b"], keys: [0, 1]), as: .plistBinary) }
    }

    @Test("a tree with a duplicate key is refused by every writer, naming both TreePaths")
    func writers() {
        let tree = TreeValue.object([("x", .object([("a", .integer("1")), ("b", .integer("2")), ("a", .integer("3"))]))]).store
        for format in DocumentFormat.allCases {
            let error = #expect(throws: FormatError.self) { try DocumentWriter.data(tree, format: format) }
            #expect(error?.message.contains("duplicate key 'a' at TreePath 0.2 (x/a) (also at TreePath 0.0 (x/a))") == true, "\(String(describing: error))")
        }
    }

    @Test("the search for a repeated key finds the first later member, among few or many keys")
    func search() {
        func keys(_ list: [String]) -> (Int) -> UnsafeRawBufferPointer {
            let stored = list.map { Array($0.utf8) }
            let buffers = stored.map { bytes -> UnsafeRawBufferPointer in
                let p = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 1)
                p.copyBytes(from: bytes)
                return UnsafeRawBufferPointer(p)
            }
            return { buffers[$0] }
        }
        let few = ["a", "b", "c", "b", "a"]
        #expect(DuplicateKeys.first(count: 5, key: keys(few))! == (3, 1))
        #expect(DuplicateKeys.first(few)! == (3, 1))
        #expect(DuplicateKeys.mayRepeat(count: 5, key: keys(few)))
        let many = (0 ..< 100).map { "key\($0)" } + ["key42", "key7"]
        #expect(DuplicateKeys.first(count: many.count, key: keys(many))! == (100, 42))
        #expect(DuplicateKeys.first(many)! == (100, 42))
        #expect(DuplicateKeys.mayRepeat(count: many.count, key: keys(many)))
        let distinct = (0 ..< 100).map { "key\($0)" } + ["", "Key1"]
        #expect(DuplicateKeys.first(count: distinct.count, key: keys(distinct)) == nil)
        #expect(DuplicateKeys.first(distinct) == nil)
        #expect(!DuplicateKeys.mayRepeat(count: distinct.count, key: keys(distinct)))
    }
}
