import Foundation

/// The fields of one database snapshot's rows that were opened as JSON (a text or `jsonb` column
/// holding an object or array), or its text values that were (a tree table's, a lazily indexed
/// JSON file's), with the node ids their subtrees were given: shared by every copy of that
/// snapshot, used by any thread (see ``EmbeddedFieldSource``).
///
/// A row's fields are looked at the first time its children are asked for, never before, and
/// once per snapshot. The ids come from the store (`reserve`), which never gives them to a row of
/// the same snapshot: a lazily read database's ids grow as levels are visited, so a block of ids
/// above the current capacity would collide with the next level read.
public final class EmbeddedFields: @unchecked Sendable {
    /// The reader and writer (injected by the library).
    public let json: EmbeddedJSON
    /// Whether the store writes a changed field back; when not, the subtrees are read-only.
    public let writable: Bool
    /// What opens: a row's fields (as child nodes) or a node's own text value (as its children).
    public let opening: Opening
    let reserve: @Sendable (Int) -> Int32?

    /// What opens as JSON.
    public enum Opening: Sendable {
        /// A row's text fields (a mapped table's columns): each becomes a child node of the row.
        case fields
        /// A node's own text value (a tree table's value node): its members become its children.
        case values
    }

    /// One field of a row that holds JSON: its name and text, and its parsed value as an opened
    /// block whose owner is the field's node (a child of the row after the row's own children;
    /// with ``Opening/values``, the row itself).
    struct Field: Sendable {
        /// The field's name (the row's attribute key), the node's title.
        var key: String
        /// The field's text.
        var text: String
        var block: EmbeddedValues.Block
        var id: NodeID { block.owner }
    }

    /// The JSON fields of one row and the block of ids reserved for them.
    struct Group: Sendable {
        var owner: NodeID
        /// The first reserved id (the first field's node) and how many were reserved.
        var start: Int32
        var count: Int32
        var fields: [Field]
        func holds(_ id: NodeID) -> Bool { id.rawValue >= start && id.rawValue - start < count }
    }

    /// Where an id of a group lies: a field's node (`local` nil) or a node inside its value.
    struct Place {
        var group: Group
        var field: Int
        var local: NodeID?
        var value: Field { group.fields[field] }
    }

    private let lock = NSLock()
    /// Row id → index in `groups`, or -1 for a row without JSON fields.
    private var rows: [Int32: Int32] = [:]
    /// Groups in the order of their ids (each reservation is above the last).
    private var groups: [Group] = []

    /// A cache for one snapshot: fields read and written with `json`, ids from `reserve` (a block
    /// of that many ids no row gets, or `nil` when none are left).
    public init(json: EmbeddedJSON, writable: Bool, opening: Opening = .fields, reserve: @escaping @Sendable (Int) -> Int32?) {
        self.json = json
        self.writable = writable
        self.opening = opening
        self.reserve = reserve
    }

    /// The JSON fields of the row `owner`, parsing its text `candidates` (its fields, or its value
    /// keyed by its title) that may hold JSON the first time; `nil` when none does.
    func group(of owner: NodeID, candidates: () -> [Attribute]) -> Group? {
        lock.lock()
        if let known = rows[owner.rawValue] {
            defer { lock.unlock() }
            return known < 0 ? nil : groups[Int(known)]
        }
        lock.unlock()
        // Parsed outside the lock: another thread may parse the same row; the first to store wins.
        var parsed: [(key: String, text: String, tree: TreeStore)] = []
        for attribute in candidates() where attribute.value.kind == .string {
            let bytes = Array(attribute.value.text.utf8)
            guard json.mayHold(TextBytes(bytes)), let tree = json.read(bytes), tree.kind(of: tree.root).isContainer else { continue }
            parsed.append((attribute.key, attribute.value.text, tree))
        }
        lock.lock()
        defer { lock.unlock() }
        if let known = rows[owner.rawValue] { return known < 0 ? nil : groups[Int(known)] }
        // A value opens in place: no node of its own.
        let own = opening == .fields ? parsed.count : 0
        let total = parsed.reduce(own) { $0 + $1.tree.idCapacity }
        guard !parsed.isEmpty, total < Int(Int32.max) / 4, let start = reserve(total) else {
            rows[owner.rawValue] = -1
            return nil
        }
        var next = start + Int32(own)
        var fields: [Field] = []
        for (i, p) in parsed.enumerated() {
            let id = opening == .fields ? NodeID(start + Int32(i)) : owner
            fields.append(Field(key: p.key, text: p.text, block: .init(owner: id, start: next, reading: DocumentSource(tree: p.tree, mode: .generic))))
            next += Int32(p.tree.idCapacity)
        }
        rows[owner.rawValue] = Int32(groups.count)
        groups.append(Group(owner: owner, start: start, count: Int32(total), fields: fields))
        return groups.last
    }

    /// Where `id` lies, when it is one of the ids reserved for a row's fields.
    /// - Complexity: O(log rows opened + fields of the row)
    func place(of id: NodeID) -> Place? {
        lock.lock()
        defer { lock.unlock() }
        var lo = 0, hi = groups.count - 1
        while lo <= hi {
            let mid = (lo + hi) / 2
            let g = groups[mid]
            if g.holds(id) {
                if let f = g.fields.firstIndex(where: { $0.id == id }) { return Place(group: g, field: f, local: nil) }
                guard let f = g.fields.firstIndex(where: { $0.block.holds(id) }) else { return nil }
                return Place(group: g, field: f, local: g.fields[f].block.local(id))
            }
            if id.rawValue < g.start { hi = mid - 1 } else { lo = mid + 1 }
        }
        return nil
    }
}
