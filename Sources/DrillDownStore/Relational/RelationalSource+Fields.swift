import DrillDownCore

extension RelationalSource {
    /// A row's form is its table's columns (see ``ResolvedLevel/storedFields(newRow:)``), worked
    /// out once per level when the mapping was resolved.
    /// - Complexity: O(log blocks): finding the row's level.
    public func storedFields(of id: NodeID) -> [Field]? {
        id == root ? nil : level(of: id)?.fields
    }

    /// A new row's form: the columns of the level below `parent`; `nil` when there is none.
    public func storedFields(forNewChildOf parent: NodeID) -> [Field]? {
        levelBelow(parent)?.newRowFields
    }

    /// The kind of the level below `parent` (its mapping's `kind:`, else its name).
    public func kind(ofNewChildOf parent: NodeID) -> String? {
        levelBelow(parent)?.kind
    }

    /// A level without a position column (one ascending integer `order:` column, such as
    /// `track`) keeps the order of its `order:` and key.
    public func keepsOrder(ofChildrenOf parent: NodeID) -> Bool {
        levelBelow(parent).map { $0.positionColumn == nil } ?? false
    }

    /// The level whose rows are `parent`'s children.
    func levelBelow(_ parent: NodeID) -> ResolvedLevel? {
        let depth = parent == root ? 0 : level(of: parent).map { $0.depth + 1 }
        guard let depth, depth < levels.count else { return nil }
        return levels[depth]
    }
}
