import DrillDownCore
import DrillDownPostgres
import Foundation
import Testing

/// Idempotency keys on a shared table: a step retried through another instance is found in
/// `<table>_keys` inside the step's transaction and applied once.
@Suite(.enabled(if: PG.url != nil, Comment(rawValue: PG.skip)))
struct PostgresStepKeyTests {
    @Test("the same key through two instances adds one row; the second answers the first's paths")
    func retryThroughAnotherInstance() async throws {
        let a = try PG.store("keys")
        let b = try PostgresTreeStore(a.table.location, listen: false)
        let modelA = DocumentModel(store: a), modelB = DocumentModel(store: b)
        let key = StepKey("retry-1", request: "add / title=Giant Steps")
        let first = try await modelA.apply(.insert(NewNode(title: "Giant Steps"), parent: .root, index: nil), key: key)
        let second = try await modelB.apply(.insert(NewNode(title: "Giant Steps"), parent: .root, index: nil), key: key)
        #expect(first == second)
        #expect(await modelB.recorded(key)?.replayed == true)
        #expect(await modelB.revision == 0)
        let tree = try PG.reread(a)
        let titles = DocumentSource(tree: tree).children(of: DocumentSource(tree: tree).root).map { DocumentSource(tree: tree).title(of: $0) }
        #expect(titles.filter { $0 == "Giant Steps" }.count == 1)
        // The same key for something else is refused on either instance.
        await #expect(throws: EditError.self) {
            try await modelB.apply(.insert(NewNode(title: "Other"), parent: .root, index: nil), key: StepKey("retry-1", request: "add / title=Other"))
        }
    }

    @Test("concurrent steps with one key on two instances: exactly one applies")
    func concurrentSameKey() async throws {
        let a = try PG.store("keyrace")
        let b = try PostgresTreeStore(a.table.location, listen: false)
        let models = [DocumentModel(store: a), DocumentModel(store: b)]
        for round in 0 ..< 10 {
            let key = StepKey("race-\(round)", request: "add / title=r\(round)")
            try await withThrowingTaskGroup(of: TreePath.self) { group in
                for model in models {
                    group.addTask { try await model.apply(.insert(NewNode(title: "r\(round)"), parent: .root, index: nil), key: key) }
                }
                let paths = try await group.reduce(into: [TreePath]()) { $0.append($1) }
                #expect(paths[0] == paths[1])
            }
        }
        let source = DocumentSource(tree: try PG.reread(a))
        let titles = source.children(of: source.root).map { source.title(of: $0) }
        for round in 0 ..< 10 { #expect(titles.filter { $0 == "r\(round)" }.count == 1) }
    }
}
