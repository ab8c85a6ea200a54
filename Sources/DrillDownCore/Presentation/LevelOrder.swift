/// The display order of one sorted level: which data row shows at each display position, and
/// back. TreePaths keep naming the data (a row's path is its index among its parent's children
/// in the data); front ends show the level through this mapping.
///
/// ```swift
/// let order = LevelOrder(values: [.text("miles"), .text("john"), .text("herbie")], descending: false)
/// order.dataIndex(at: 0)            // 2 (herbie)
/// order.displayPosition(of: 0)      // 2 (miles shows last)
/// ```
public struct LevelOrder: Sendable, Equatable {
    /// The data index of the row at each display position.
    public let dataIndices: [Int32]
    /// The display position of each data index.
    let positions: [Int32]

    /// The order that sorts `values` (one per data row) ascending, or descending; rows without a
    /// value last either way, and equal values in data order (stable).
    /// - Complexity: O(n log n) comparisons of the values.
    public init(values: [SortValue], descending: Bool) {
        var indices = (0 ..< Int32(values.count)).map { $0 }
        indices.sort { i, j in
            let a = values[Int(i)], b = values[Int(j)]
            if a == b { return i < j }
            if a == .missing { return false }
            if b == .missing { return true }
            return descending ? b < a : a < b
        }
        self.init(dataIndices: indices)
    }

    /// An order from the data index at each display position (a permutation of `0 ..< n`).
    public init(dataIndices: [Int32]) {
        self.dataIndices = dataIndices
        var positions = [Int32](repeating: 0, count: dataIndices.count)
        for (position, index) in dataIndices.enumerated() { positions[Int(index)] = Int32(position) }
        self.positions = positions
    }

    /// The number of rows.
    public var count: Int { dataIndices.count }

    /// The data index of the row shown at `position`.
    /// - Complexity: O(1)
    public func dataIndex(at position: Int) -> Int { Int(dataIndices[position]) }

    /// The display position of the row whose data index is `index`.
    /// - Complexity: O(1)
    public func displayPosition(of index: Int) -> Int { Int(positions[index]) }
}
