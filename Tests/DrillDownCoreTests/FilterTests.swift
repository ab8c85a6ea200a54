import Foundation
import Testing
@testable import DrillDownCore

/// Filters (issue 33): the expression parser and its errors, typed values, evaluation over a level
/// and across depth, facets, and a property: a filter's rows are a brute-force scan's.
@Suite("Filters")
struct FilterTests {
    /// Songs with a length in seconds, a genre, a year and a date.
    static func songs(_ items: [(String, Int, String, Int)]) -> Doc {
        .object([("Rows", .array(items.map { name, length, genre, year in
            .object([("name", .string(name)), ("length", .int(length)), ("genre", .string(genre)), ("year", .int(year)),
                     ("released", .string("\(year)-05-01T10:00:00Z"))])
        }))])
    }

    static let sample = songs([
        ("So What", 562, "Jazz", 1959), ("Blue in Green", 337, "Jazz", 1959), ("Paranoid", 170, "Metal", 1970),
        ("Kashmir", 508, "Rock", 1975), ("Café Blues", 240, "Blues", 1961), ("Stairway", 482, "Rock", 1971),
    ])

    static func presenter(_ doc: Doc = sample) throws -> Presenter {
        let schema = try Schema(tree: Doc.object([
            ("kinds", .object([("song", .object([("title", .string("{name}")), ("formats", .object([("length", .string("duration"))]))]))])),
            ("root", .string("song")),
        ]).tree)
        return Presenter(source: DocumentSource(tree: doc.tree), schema: schema)
    }

    func titles(_ expression: String) throws -> [String] {
        let p = try Self.presenter()
        let root = p.source.root
        return try p.filtering(root, by: Filter(expression)).rows(of: root).map(\.title)
    }

    @Test("operators compare by the field's type: a duration as m:ss, numbers numerically, ~ ignoring case and accents")
    func operators() throws {
        #expect(try titles("length>6:00") == ["So What", "Kashmir", "Stairway"])
        #expect(try titles("length>=8:02") == ["So What", "Kashmir", "Stairway"])
        #expect(try titles("length<4:00") == ["Paranoid"])
        #expect(try titles("length<=240") == ["Paranoid", "Café Blues"])
        #expect(try titles("genre=Rock") == ["Kashmir", "Stairway"])
        #expect(try titles("genre!=Jazz") == ["Paranoid", "Kashmir", "Café Blues", "Stairway"])
        #expect(try titles("name~cafe") == ["Café Blues"])
        #expect(try titles("name~BLUE") == ["Blue in Green", "Café Blues"])
        #expect(try titles("genre in (Rock, Metal)") == ["Paranoid", "Kashmir", "Stairway"])
        #expect(try titles("year exists and year<1960") == ["So What", "Blue in Green"])
        #expect(try titles("released=1975-05-01") == ["Kashmir"])
        #expect(try titles("released>=1971-01-01 and released<1976-01-01") == ["Kashmir", "Stairway"])
        #expect(try titles("title=Kashmir") == ["Kashmir"])
    }

    @Test("and binds tighter than or; parentheses group; quoted values keep spaces and keywords")
    func combining() throws {
        #expect(try titles("genre=Jazz or genre=Rock and year>1972") == ["So What", "Blue in Green", "Kashmir"])
        #expect(try titles("(genre=Jazz or genre=Rock) and year>1972") == ["Kashmir"])
        #expect(try titles("name=\"Blue in Green\"") == ["Blue in Green"])
        #expect(try titles("name=Blue in Green") == ["Blue in Green"])
        #expect(try Filter("a=1 and (b=2 or c=3)").description == "a=1 and (b=2 or c=3)")
        #expect(try Filter(try Filter("name=\"x and y\" or n in (a, \"b c\")").description) == Filter("name=\"x and y\" or n in (a, \"b c\")"))
    }

    @Test("parse errors name the column where the expression stops making sense")
    func parseErrors() {
        func column(_ text: String) -> Int? {
            do {
                _ = try Filter(text)
                return nil
            } catch { return error.column }
        }
        #expect(column("") == 1)
        #expect(column("length>") == 8)
        #expect(column("length 360") == 8)
        #expect(column("genre=Rock and") == 15)
        #expect(column("genre in Rock") == 10)
        #expect(column("(genre=Rock") == 12)
        #expect(column("name=\"open") == 6)
        #expect(column("genre=Rock)") == 11)
        #expect(column(String(repeating: "(", count: 40) + "a=1" + String(repeating: ")", count: 40)) != nil)
    }

    @Test("an unknown field, or a value its field does not take, is an error at its column")
    func bindingErrors() throws {
        let p = try Self.presenter()
        let root = p.source.root
        #expect(throws: FilterError.self) { try p.filtering(root, by: Filter("colour=red")) }
        do {
            _ = try p.filtering(root, by: Filter("genre=Rock and length>long"))
            Issue.record("a duration field took 'long'")
        } catch {
            #expect(error.column == 23)
            #expect(error.message.contains("duration"))
        }
        do {
            _ = try p.filtering(root, by: Filter("year>=nineteen"))
            Issue.record("a number field took text")
        } catch { #expect(error.column == 7) }
        do {
            _ = try p.filtering(root, by: Filter("colour=red"))
        } catch {
            #expect(error.column == 1)
            #expect(error.message.contains("unknown field 'colour'"))
        }
    }

    @Test("a filtered level counts, pages and sorts its matching rows; paths name the data")
    func levels() throws {
        let p = try Self.presenter()
        let root = p.source.root
        let rock = try p.sorting(root, by: SortRule("-length")).filtering(root, by: Filter("genre in (Rock, Jazz)"))
        #expect(rock.rowCount(of: root) == 4)
        #expect(rock.rows(of: root).map(\.title) == ["So What", "Kashmir", "Stairway", "Blue in Green"])
        #expect(rock.rows(of: root, offset: 1, limit: 2).map(\.path.description) == ["3", "5"])
    }

    @Test("find(where:) returns matching rows at any depth with their paths")
    func acrossDepth() throws {
        let doc: Doc = .object([("Rows", .array([
            row("A", [row("X", [
                row("long one", [], [("kind", .string("song")), ("length", .int(700))]),
                row("short", [], [("kind", .string("song")), ("length", .int(100))]),
            ], [("kind", .string("album"))])], [("kind", .string("artist"))]),
        ]))])
        let p = Presenter(source: DocumentSource(tree: doc.tree))
        let found = try p.find(where: Filter("kind=song and length>600"))
        #expect(found.total == 1)
        #expect(found.hits.map { p.source.path(of: $0).description } == ["0.0.0"])
        #expect(try p.find(where: Filter("length>10:00")).total == 1)
    }

    @Test("a facet counts a field's values over the level or the filtered level, most rows first")
    func facets() throws {
        let p = try Self.presenter()
        let root = p.source.root
        let all = try p.facet(of: root, field: "genre")
        #expect(all.values.map(\.value) == ["Jazz", "Rock", "Blues", "Metal"])
        #expect(all.values.map(\.count) == [2, 2, 1, 1])
        #expect(all.rows == 6 && all.distinct == 4 && all.missing == 0)
        let long = try p.filtering(root, by: Filter("length>4:00")).facet(of: root, field: "genre")
        #expect(long.values.map(\.value) == ["Jazz", "Rock"])
        #expect(try p.facet(of: root, field: "length", limit: 1).values.first?.label.contains(":") == true)
        #expect(all.filter(for: all.values[1]).description == "genre=Rock")
        #expect(throws: FilterError.self) { try p.facet(of: root, field: "nope") }
    }

    @Test("a number read from a member's bytes passes exactly when its text would")
    func numbersFromBytes() throws {
        let fields = [Field(key: "n", type: .integer)]
        let texts = ["0", "-0", "7", "-12", "0012", "999999999999999", "1e3", "1_000", "+5", "", "-", "12.5", "9999999999999999"]
        for expression in ["n>7", "n<=-12", "n=12", "n!=0", "n in (7, 12, -12)", "n>=1000"] {
            let test = try BoundFilter(Filter(expression), fields: fields).tests[0]
            for text in texts {
                let bytes = TreeLiteral.scalar(.integer, text).tree
                let number = DocumentSource.integer(bytes.valueBytes(of: bytes.root))
                if let number {
                    #expect(test.matches(number: number) == test.matches(text), "\(expression) on \(text)")
                } else {
                    // Not plain digits: the text path decides.
                    #expect(["1e3", "1_000", "+5", "", "-", "12.5", "9999999999999999"].contains(text), "\(text) was not read")
                }
            }
        }
    }

    @Test("property: a filter's rows are exactly those a brute-force scan of the level keeps")
    func matchesBruteForce() throws {
        var rng = SplitMix(state: 33)
        let genres = ["Rock", "Jazz", "Blues", "Métal", "rock"]
        for _ in 0 ..< 30 {
            var items: [(String, Int, String, Int)] = []
            for i in 0 ..< Int.random(in: 1 ..< 60, using: &rng) {
                items.append(("song \(i)", Int.random(in: 60 ..< 900, using: &rng), genres.randomElement(using: &rng)!, Int.random(in: 1950 ..< 2000, using: &rng)))
            }
            let p = try Self.presenter(Self.songs(items))
            let root = p.source.root
            for _ in 0 ..< 10 {
                let n = Int.random(in: 60 ..< 900, using: &rng), y = Int.random(in: 1950 ..< 2000, using: &rng)
                let g = genres.randomElement(using: &rng)!, h = genres.randomElement(using: &rng)!
                let ops: [(String, (Int, String, Int) -> Bool)] = [
                    ("length>\(n / 60):\(String(format: "%02d", n % 60))", { l, _, _ in l > n }),
                    ("length<=\(n)", { l, _, _ in l <= n }),
                    ("genre=\"\(g)\"", { _, gg, _ in gg == g }),
                    ("genre!=\"\(g)\"", { _, gg, _ in gg != g }),
                    ("genre~\"\(g.prefix(3))\"", { _, gg, _ in BoundFilter.fold(gg).contains(BoundFilter.fold(String(g.prefix(3)))) }),
                    ("genre in (\"\(g)\", \"\(h)\")", { _, gg, _ in gg == g || gg == h }),
                    ("year>=\(y)", { _, _, yy in yy >= y }),
                ]
                let a = ops.randomElement(using: &rng)!, b = ops.randomElement(using: &rng)!
                let both = Bool.random(using: &rng)
                let expression = "\(a.0) \(both ? "and" : "or") \(b.0)"
                let expected = items.enumerated().filter { _, s in
                    both ? a.1(s.1, s.2, s.3) && b.1(s.1, s.2, s.3) : a.1(s.1, s.2, s.3) || b.1(s.1, s.2, s.3)
                }.map(\.offset)
                let filtered = try p.filtering(root, by: Filter(expression))
                #expect(filtered.rows(of: root).map { $0.path.indices[0] } == expected, "\(expression)")
                #expect(filtered.rowCount(of: root) == expected.count)
            }
        }
    }
}
