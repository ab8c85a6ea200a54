import DrillDownCore

extension RelationalSource: MoveRules {
    /// A row moves only under a row of the level above its own (the root for the first level),
    /// and never out of a view.
    public func moveRefusal(of moving: NodeID, into parent: NodeID) -> String? {
        guard let level = level(of: moving) else { return nil }
        if level.isView { return "level '\(level.level.name)' reads the view '\(level.table)', which cannot be written" }
        guard levelBelow(parent)?.depth != level.depth else { return nil }
        let above = level.depth > 0 ? "a row of level '\(levels[level.depth - 1].level.name)'" : "the top level"
        return "a row of level '\(level.level.name)' can only move under \(above)"
    }

    /// Rows of the last level have no level below to hold children.
    public func canHoldChildren(_ id: NodeID) -> Bool { levelBelow(id) != nil }

    /// A level keeps its own order (its `order:` columns, else its key) unless that order is one
    /// integer column that moves renumber.
    public func ownOrder(ofChildrenOf parent: NodeID) -> String? {
        guard let level = levelBelow(parent), level.positionColumn == nil else { return nil }
        return level.level.order.isEmpty ? "their key" : level.level.order.joined(separator: ", ")
    }
}
