import DrillDownCore
import Foundation
import GRDB
import Testing
@testable import DrillDownStore

@Suite("Sorted relational levels: ORDER BY on the server (issue 30 item 4)")
struct RelationalSortTests {
    /// Artists stored by id, not by name: mixed case, accents and leading articles.
    static let names = [
        "Miles Davis", "the Baker Ensemble", "Zoë Jones", "Ángel Ibarra", "The Davis Quartet", "art Blakey",
        "Émile Evans", "Chet Baker", "Øystein Monk", "Bill Evans",
    ]

    func database(_ folder: TempFolder) throws -> String {
        let path = folder.path("artists.db")
        try DatabaseQueue(path: path).write { db in
            try db.execute(sql: "CREATE TABLE artists(id INTEGER PRIMARY KEY, name TEXT NOT NULL, plays INTEGER)")
            try db.execute(sql: "CREATE INDEX artists_by_plays ON artists(plays)")
            for (i, name) in Self.names.enumerated() {
                try db.execute(sql: "INSERT INTO artists(id, name, plays) VALUES (?, ?, ?)", arguments: [i + 1, name, (i * 7) % 10])
            }
        }
        return path
    }

    func schema(sort: String) throws -> Schema {
        var artist = Template(kind: "artist")
        artist.sort = try SortRule(sort)
        var schema = Schema()
        schema.kinds = [artist]
        schema.rootKind = "artist"
        schema.sortIgnoring = ["The "]
        return schema
    }

    func open(_ path: String, _ schema: Schema, _ log: StatementLog) throws -> RelationalSource {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.prepareDatabase { db in db.trace { log.append($0.expandedDescription) } }
        let mapping = RelationalMapping(levels: [.init(table: "artists", title: "name", key: "id", kind: "artist")]).sorted(by: schema)
        return try RelationalSource(database: try DatabaseQueue(path: path, configuration: configuration), mapping: mapping, file: path)
    }

    @Test("sort: name sorts in SQL with the documents' collation (case, accents, articles), and the presenter sorts nothing")
    func title() throws {
        let folder = try TempFolder()
        defer { folder.cleanUp() }
        let log = StatementLog()
        let schema = try schema(sort: "name")
        let source = try open(try database(folder), schema, log)
        let rows = source.children(of: source.root)
        let titles = rows.map { source.title(of: $0) }
        #expect(titles == [
            "Ángel Ibarra", "art Blakey", "the Baker Ensemble", "Bill Evans", "Chet Baker", "The Davis Quartet", "Émile Evans",
            "Miles Davis", "Zoë Jones", "Øystein Monk",
        ])
        #expect(log.statements.contains { $0.contains("ORDER BY \"name\" COLLATE drilldown_sort, \"id\"") }, "\(log.statements)")
        let presenter = Presenter(source: source, schema: schema)
        #expect(presenter.order(of: source.root) == nil, "the database sorted the level")
        #expect(presenter.rows(of: source.root).map(\.title) == titles)
        // The same order as a document level sorted in memory.
        let values = Self.names.map { SortValue($0, ignoring: ["The "]) }
        let order = LevelOrder(values: values, descending: false)
        #expect(order.dataIndices.map { Self.names[Int($0)] } == titles)
    }

    @Test("sort: -plays on an indexed integer column is an indexed ORDER BY … DESC without a sort step")
    func numbersUseTheIndex() throws {
        let folder = try TempFolder()
        defer { folder.cleanUp() }
        let path = try database(folder)
        let log = StatementLog()
        let source = try open(path, try schema(sort: "-plays"), log)
        let plays = source.children(of: source.root).map { source.attribute("plays", of: $0)?.text ?? "" }
        #expect(plays == plays.sorted { Int($0)! > Int($1)! })
        let page = try #require(log.statements.first { $0.contains("FROM \"artists\"") && $0.contains("ORDER BY") })
        #expect(page.contains("ORDER BY \"plays\" DESC, \"id\""), "\(page)")
        let details = try DatabaseQueue(path: path).read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN SELECT id FROM artists ORDER BY plays DESC, id LIMIT 100").map { $0["detail"] as String }
        }
        #expect(details.contains { $0.contains("artists_by_plays") }, "\(details)")
    }

    @Test("a level sorted by a column is read in that order, so moves that renumber a column are off")
    func sortedLevelsAreNotReorderable() throws {
        let folder = try TempFolder()
        defer { folder.cleanUp() }
        let source = try open(try database(folder), try schema(sort: "plays"), StatementLog())
        #expect(source.levels[0].positionColumn == nil)
        #expect(source.sorts(childrenOf: source.root, by: try SortRule("plays")))
        #expect(!source.sorts(childrenOf: source.root, by: try SortRule("-plays")))
        #expect(!source.sorts(childrenOf: source.root, by: try SortRule("title")))
    }
}
