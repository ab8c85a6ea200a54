import DrillDownCore
import Foundation
import GRDB
import Testing
@testable import DrillDownStore

@Suite("Sorted tree-table levels: ORDER BY in SQLite (issue 30 item 4)")
struct TreeTableSortTests {
    static let names = ["Miles Davis", "the Baker Ensemble", "Zoë Jones", "Ángel Ibarra", "The Davis Quartet", "art Blakey", "Chet Baker", "Bill Evans"]

    /// A tree table of artists (outline convention) and the same document in memory.
    func artists(_ folder: TempFolder) throws -> (path: String, document: DocumentSource) {
        let rows: [Doc] = Self.names.enumerated().map { i, name in
            .object([("Title", .string(name)), ("plays", .int((i * 7) % 10)), ("year", i == 2 ? .null : .int(1900 + i))])
        }
        let tree = Doc.object([("Title", .string("Artists")), ("Rows", .array(rows))]).tree
        let path = folder.path("artists.sqlite")
        try SQLiteTreeStore(path: path).write(tree, documentFormat: "json")
        return (path, DocumentSource(tree: tree))
    }

    func presenter(_ source: any Source, sort: String) throws -> Presenter {
        var schema = Schema()
        var artist = Template(kind: "artist")
        artist.sort = try SortRule(sort)
        schema.kinds = [artist]
        schema.rootKind = "artist"
        schema.sortIgnoring = ["The "]
        return Presenter(source: source, schema: schema)
    }

    @Test("title, a field and descending sort in one SQL query, in the same order as the document sorted in memory", arguments: [
        "title", "plays", "-plays", "{year}", "-title",
    ])
    func sameOrderAsDocuments(sort: String) throws {
        let folder = try TempFolder()
        defer { folder.cleanUp() }
        let (path, document) = try artists(folder)
        let store = try SQLiteTreeStore(path: path, create: false, readOnly: true)
        let table = try TreeTableSource(store: store)
        let sorted = try presenter(table, sort: sort)
        let expected = try presenter(document, sort: sort).rows(of: document.root)
        let shown = sorted.rows(of: table.root)
        #expect(shown.map(\.title) == expected.map(\.title))
        #expect(shown.map(\.path) == expected.map(\.path), "paths name the data")
        // The store answered the order: the presenter read no row to sort.
        let field = try #require(sorted.sortField(try SortRule(sort), first: table.children(of: table.root).first))
        let stored = try #require(table.sortedOrder(ofChildren: table.root, by: field, descending: sort.hasPrefix("-"), ignoring: ["The "]))
        #expect(stored == sorted.order(of: table.root))
    }

    @Test("the query ranks the level in SQL and orders by the rows' sort keys")
    func queryText() throws {
        let folder = try TempFolder()
        defer { folder.cleanUp() }
        let (path, _) = try artists(folder)
        let log = StatementLog()
        var configuration = Configuration()
        configuration.readonly = true
        configuration.prepareDatabase { db in db.trace { log.append($0.expandedDescription) } }
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        let indices = try queue.read { db in
            let rows = try Int64.fetchOne(db, sql: "SELECT id FROM nodes WHERE key = 'Rows'") ?? -1
            return try SQLiteNodeRows.Queries(db: db, counts: true).sortedIndices(
                of: rows, memberKeys: ["plays"], scalarsByValue: false, descending: true, articles: [])
        }
        #expect(indices?.count == Self.names.count)
        let sql = try #require(log.statements.first { $0.contains("drilldown_sort_key") })
        #expect(sql.contains("ROW_NUMBER() OVER (ORDER BY c.position, c.id)") && sql.contains("ORDER BY k IS NULL, k DESC, i"), "\(sql)")
    }

    @Test("sort keys order as SortValue does: numbers numerically first, folded text, nothing for no value")
    func keys() {
        let values = ["10", "9", "-2.5", "abc", "Ábc", "b", "", "1e3"]
        let byKey = values.filter { SortCollation.key($0, ignoring: []) != nil }.sorted {
            (SortCollation.key($0, ignoring: [])!, values.firstIndex(of: $0)!) < (SortCollation.key($1, ignoring: [])!, values.firstIndex(of: $1)!)
        }
        #expect(byKey == ["-2.5", "9", "10", "1e3", "abc", "Ábc", "b"])
        #expect(SortCollation.key("", ignoring: []) == nil)
    }
}
