import DrillDownCore
import GRDB
#if canImport(GRDBSQLite)
import GRDBSQLite
#else
import SQLite3
#endif

/// The rows of a `nodes` table in memory: columns as flat arrays, texts in one byte buffer.
struct NodeTable {
    var ids: [Int64] = []
    var parents: [Int64] = []
    var positions: [Int64] = []
    var kinds: [Int64] = []
    var keyStarts: [Int] = []
    var valueStarts: [Int] = []
    var bytes: [UInt8] = []

    struct Invalid: Error { var message: String }

    /// Scans the table in rowid order with the raw statement API.
    init(_ db: Database) throws {
        let expected = try Int.fetchOne(db, sql: "SELECT max(id) + 1 FROM nodes") ?? 0
        ids.reserveCapacity(expected)
        parents.reserveCapacity(expected)
        positions.reserveCapacity(expected)
        kinds.reserveCapacity(expected)
        keyStarts.reserveCapacity(expected + 1)
        valueStarts.reserveCapacity(expected + 1)
        let statement = try db.makeStatement(sql: "SELECT id, parent, position, kind, key, value FROM nodes")
        let handle = statement.sqliteStatement
        defer { sqlite3_reset(handle) }
        while true {
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE { break }
            guard code == SQLITE_ROW else {
                throw DatabaseError(
                    resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
            }
            ids.append(sqlite3_column_int64(handle, 0))
            parents.append(sqlite3_column_type(handle, 1) == SQLITE_NULL ? -1 : sqlite3_column_int64(handle, 1))
            positions.append(sqlite3_column_int64(handle, 2))
            kinds.append(sqlite3_column_int64(handle, 3))
            keyStarts.append(bytes.count)
            appendText(handle, 4)
            valueStarts.append(bytes.count)
            appendText(handle, 5)
        }
        keyStarts.append(bytes.count)
    }

    mutating func appendText(_ handle: OpaquePointer, _ column: CInt) {
        guard let text = sqlite3_column_text(handle, column) else { return }
        let count = Int(sqlite3_column_bytes(handle, column))
        bytes.append(contentsOf: UnsafeBufferPointer(start: text, count: count))
    }

    var count: Int { ids.count }
    func key(_ row: Int) -> Range<Int> { keyStarts[row] ..< valueStarts[row] }
    func value(_ row: Int) -> Range<Int> { valueStarts[row] ..< keyStarts[row + 1] }

    /// Replays the rows into a TreeBuilder, depth-first from the root.
    func build() throws(Invalid) -> TreeStore {
        let n = count
        guard n > 0 else { throw Invalid(message: "it is empty (a tree needs a root: a row whose parent is NULL)") }
        guard n < Int(Int32.max) else { throw Invalid(message: "\(n) nodes is more than a tree holds") }
        // Row index of each id: the identity when ids are 0 ..< n in order (what write produces).
        var dense = true
        for i in 0 ..< n where ids[i] != Int64(i) {
            dense = false
            break
        }
        var rowOfID: [Int64: Int] = [:]
        if !dense {
            rowOfID.reserveCapacity(n)
            for i in 0 ..< n { rowOfID[ids[i]] = i }
        }
        func row(of id: Int64) -> Int? {
            if dense { return id >= 0 && id < Int64(n) ? Int(id) : nil }
            return rowOfID[id]
        }
        // Children grouped by parent row (counting sort), then ordered by position.
        var root = -1
        var parentRows = [Int](repeating: -1, count: n)
        var childCounts = [Int](repeating: 0, count: n + 1)
        for i in 0 ..< n where kinds[i] < 0 || kinds[i] >= Int64(ValueKind.allCases.count) {
            throw Invalid(message: "node \(ids[i]) has kind \(kinds[i]), which is not a known kind (0–\(ValueKind.allCases.count - 1))")
        }
        for i in 0 ..< n {
            if parents[i] < 0 {
                guard root < 0 else { throw Invalid(message: "nodes \(ids[root]) and \(ids[i]) both have no parent; a tree has one root") }
                root = i
                continue
            }
            guard let p = row(of: parents[i]) else {
                throw Invalid(message: "node \(ids[i]) names parent \(parents[i]), which does not exist")
            }
            guard ValueKind(rawValue: UInt8(kinds[p]))!.isContainer else {
                throw Invalid(message: "node \(ids[i]) has parent \(parents[i]), a \(ValueKind(rawValue: UInt8(kinds[p]))!) scalar, which cannot hold children")
            }
            parentRows[i] = p
            childCounts[p + 1] += 1
        }
        guard root >= 0 else { throw Invalid(message: "no root: every node has a parent, so they form a cycle") }
        var firstChild = childCounts
        for i in 0 ..< n { firstChild[i + 1] += firstChild[i] }
        var fill = firstChild
        var children = [Int](repeating: 0, count: max(0, n - 1))
        for i in 0 ..< n where parentRows[i] >= 0 {
            children[fill[parentRows[i]]] = i
            fill[parentRows[i]] += 1
        }
        for p in 0 ..< n where childCounts[p + 1] > 1 {
            let range = firstChild[p] ..< firstChild[p + 1]
            var sorted = true
            for j in range.dropFirst() where positions[children[j]] < positions[children[j - 1]] {
                sorted = false
                break
            }
            if !sorted { children[range].sort { (positions[$0], $0) < (positions[$1], $1) } }
        }
        // Depth-first replay; each stack entry is a container row and its next child slot.
        var builder = TreeBuilder(expectedNodes: n, expectedTextBytes: bytes.count)
        var visited = 0
        var stack: [(row: Int, next: Int)] = []
        func emit(_ i: Int) {
            visited += 1
            builder.beginNode()
            bytes.withUnsafeBufferPointer { builder.appendText(UnsafeBufferPointer(rebasing: $0[key(i)])) }
            builder.endKey()
            let kind = ValueKind(rawValue: UInt8(kinds[i]))!
            if kind.isContainer {
                builder.openContainer(kind)
                stack.append((i, firstChild[i]))
            } else {
                bytes.withUnsafeBufferPointer { builder.appendText(UnsafeBufferPointer(rebasing: $0[value(i)])) }
                builder.finishScalar(kind)
            }
        }
        emit(root)
        while let top = stack.last {
            if top.next < firstChild[top.row + 1] {
                stack[stack.count - 1].next += 1
                emit(children[top.next])
            } else {
                stack.removeLast()
                builder.closeContainer()
            }
        }
        guard visited == n else {
            throw Invalid(message: "\(n - visited) of \(n) nodes cannot be reached from the root \(ids[root]) (their parents form a cycle)")
        }
        return builder.build()
    }
}
