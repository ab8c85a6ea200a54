import DrillDownCore
@testable import DrillDownFormats
import Foundation
import Testing

/// CSV (RFC 4180) in both directions: records with every kind of awkward field read back as
/// written, values typed by a schema's fields or inferred, and malformed input refused with its
/// line and column.
@Suite("CSV")
struct CSVTests {
    /// The CSV of `rows` under `header`, as ``CSVWriter`` quotes fields.
    static func csv(_ header: [String], _ rows: [[String?]]) -> [UInt8] {
        var out: [UInt8] = []
        CSVWriter.record(header, into: &out)
        for row in rows { CSVWriter.record(row, into: &out) }
        return out
    }

    /// The level table of a CSV document's rows.
    static func table(_ bytes: [UInt8], fields: [Field] = []) throws -> LevelTable {
        let tree = try bytes.withUnsafeBufferPointer { buffer throws(ParseFailure) in try CSVReader.read(buffer, fields: fields) }
        let source = DocumentSource(tree: tree)
        return try LevelTable(source: source, level: source.root)
    }

    @Test("random records with commas, quotes, line breaks, spaces and any Unicode read back as written")
    func roundTrip() throws {
        var rng = SeededGenerator(seed: 4180)
        let alphabet: [String] = ["a", "Z", "0", "7", ",", "\"", "\n", "\r\n", " ", "\t", "é", "東", "😀", "-", ".", "'", ";", "\u{0}"]
        func text(_ n: Int) -> String { (0 ..< n).map { _ in alphabet.randomElement(using: &rng)! }.joined() }
        for round in 0 ..< 200 {
            let columns = Int.random(in: 1 ... 6, using: &rng)
            var header = ["title"]
            while header.count < columns {
                let key = "c\(header.count)" + text(Int.random(in: 0 ... 3, using: &rng)).filter { $0 != "\0" }
                if !header.contains(where: { $0.lowercased() == key.lowercased() }) { header.append(key) }
            }
            let rows: [[String?]] = (0 ..< Int.random(in: 1 ... 12, using: &rng)).map { r in
                header.indices.map { c in
                    // The first row has every value, so the columns keep their order.
                    if r > 0, c > 0, Int.random(in: 0 ..< 4, using: &rng) == 0 { return nil }
                    let t = text(Int.random(in: 1 ... 12, using: &rng))
                    return c == 0 ? t : t
                }
            }
            let bytes = Self.csv(header, rows)
            let back = CSVWriter.data(try Self.table(bytes))
            #expect(back == bytes, "round \(round): \(String(decoding: bytes, as: UTF8.self).debugDescription) came back as \(String(decoding: back, as: UTF8.self).debugDescription)")
            if back != bytes { break }
        }
    }

    @Test("values are inferred as an edit infers them; the title stays text; an empty field is no value")
    func inferred() throws {
        let tree = try read("name,year,rating,live,note\r\n1959,1959,4.5,true,07\r\nKind of Blue,,,false,\r\n", as: .csv)
        #expect(tree == .object([("rows", .array([
            .object([("name", .string("1959")), ("year", .integer("1959")), ("rating", .real("4.5")), ("live", .bool(true)), ("note", .string("07"))]),
            .object([("name", .string("Kind of Blue")), ("live", .bool(false))]),
        ]))]))
    }

    @Test("a schema's fields type the values: a duration from m:ss, a refused value names its line and column")
    func typedByFields() throws {
        let fields = [Field(key: "length", type: .duration), Field(key: "genre", choices: ["Rock", "Jazz"])]
        let good = try Self.table(Array("name,length,genre\nSo What,9:22,jazz\n".utf8), fields: fields)
        let row = good.rows[0]
        #expect(good.source.attribute("length", of: row) == Scalar(.integer, "562"))
        #expect(good.source.attribute("genre", of: row) == Scalar(.string, "Jazz"))
        let error = #expect(throws: FormatError.self) {
            try DocumentReader.read(csv: Self.file("name,length\nSo What,9:22\nBlue,soon\n"), fields: fields)
        }
        #expect(error?.line == 3 && error?.column == 6, "\(String(describing: error))")
        #expect(error?.message.contains("'length' takes a duration") == true)
    }

    @Test("malformed CSV is refused with the line and column of the problem", arguments: [
        ("a,b\n1,\"two\n3,4\n", 2, 3, "unterminated quoted field"),
        ("a,b\n1,2\n3,4,5\n", 3, 5, "this record has 3 fields; the header has 2"),
        ("a,b\n1,2\n3\n", 3, 2, "this record has 1 field; the header has 2"),
        ("a,b\n\"1\"x,2\n", 2, 4, "expected ',' or a line break after the closing quote, found 'x'"),
        ("a,,b\n1,2,3\n", 1, 3, "column 2 of the header has no name"),
        ("a,A\n1,2\n", 1, 3, "the header names 'A' twice"),
        ("", 1, 1, "empty document"),
    ])
    func malformed(_ text: String, _ line: Int, _ column: Int, _ message: String) {
        let error = readError(text, as: .csv, file: "bad.csv")
        #expect(error?.line == line && error?.column == column, "\(String(describing: error))")
        #expect(error?.message.contains(message) == true, "\(String(describing: error))")
    }

    @Test("a level's columns: the title first, then every key the rows have, in the order they first appear")
    func columns() throws {
        let tree = try DocumentReader.read(bytes: Array(#"{"rows": [{"title": "A", "x": 1}, {"title": "B", "y": "z", "children": [{"title": "C"}]}]}"#.utf8), file: "t.json").tree
        let source = DocumentSource(tree: tree)
        let table = try LevelTable(source: source, level: source.root)
        #expect(table.columns.map(\.key) == ["title", "x", "y"])
        #expect(String(decoding: CSVWriter.data(table), as: UTF8.self) == "title,x,y\r\nA,1,\r\nB,,z\r\n")
        let error = #expect(throws: FormatError.self) { try DocumentWriter.data(tree, format: .csv) }
        #expect(error?.message.contains("has rows below it") == true)
    }

    @Test("damaged CSV gives a tree that writes back equal, or an error with its location")
    func damaged() {
        let good = Self.csv(["title", "n", "s"], [["A", "1", "x, \"y\""], ["B", "2", "é\n東"], ["C", "3", "z"]])
        var rng = SeededGenerator(seed: 12)
        let specials = Array(",\"\n\r x".utf8) + [0x80, 0xC3]
        for _ in 0 ..< 400 {
            var bytes = good
            switch Int.random(in: 0 ..< 3, using: &rng) {
            case 0: bytes.removeLast(Int.random(in: 1 ... bytes.count, using: &rng))
            case 1: bytes[Int.random(in: 0 ..< bytes.count, using: &rng)] = specials.randomElement(using: &rng)!
            default: bytes.insert(specials.randomElement(using: &rng)!, at: Int.random(in: 0 ... bytes.count, using: &rng))
            }
            do {
                _ = try DocumentReader.read(bytes: bytes, file: "f.csv", format: .csv)
            } catch {
                #expect((error.line ?? 0) >= 1 && (error.column ?? 0) >= 1, "\(error)")
            }
        }
    }

    /// A temporary file holding `text`.
    static func file(_ text: String) -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("csv-\(UInt64.random(in: 0 ... .max)).csv").path
        _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
        return path
    }
}

extension CSVTests {
    @Test("a generic object's members are rows titled by their keys, a scalar member's value in a value column")
    func genericLevel() throws {
        let tree = try DocumentReader.read(bytes: Array(#"{"port": 8080, "host": "a, b", "tls": {"on": true}}"#.utf8), file: "c.json").tree
        let source = DocumentSource(tree: tree, mode: .generic)
        let table = try LevelTable(source: source, level: source.root)
        #expect(String(decoding: CSVWriter.data(table), as: UTF8.self) == "key,value,on\r\nport,8080,\r\nhost,\"a, b\",\r\ntls,,true\r\n")
    }
}
