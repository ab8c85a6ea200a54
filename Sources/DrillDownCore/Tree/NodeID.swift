/// The integer identity of a node inside one ``Source``.
///
/// Ids are dense (`0 ..< source.capacity`), and the children of a node always
/// occupy a contiguous id range, so per-node side tables are plain arrays.
public struct NodeID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The raw index into the source's flat arrays.
    public var rawValue: Int32

    /// Creates an id from a raw index.
    @inlinable public init(_ rawValue: Int32) { self.rawValue = rawValue }

    /// Creates an id from an `Int` index.
    @inlinable public init(_ index: Int) { self.rawValue = Int32(truncatingIfNeeded: index) }

    /// The id as an array index.
    @inlinable public var index: Int { Int(rawValue) }

    public static func < (lhs: NodeID, rhs: NodeID) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { "#\(rawValue)" }
}

/// A contiguous range of sibling node ids: the children of one node, in document order.
public struct NodeRange: RandomAccessCollection, Sendable, Equatable {
    /// The first child's raw id.
    public var lowerBound: Int32
    /// One past the last child's raw id.
    public var upperBound: Int32

    /// Creates a range of ids.
    @inlinable public init(_ lowerBound: Int32, _ upperBound: Int32) {
        self.lowerBound = lowerBound
        self.upperBound = upperBound
    }

    /// An empty range.
    public static let empty = NodeRange(0, 0)

    @inlinable public var startIndex: Int { 0 }
    @inlinable public var endIndex: Int { Int(upperBound - lowerBound) }
    @inlinable public subscript(position: Int) -> NodeID { NodeID(lowerBound + Int32(position)) }

    /// The position of `id` inside this range, if it is one of these siblings.
    @inlinable public func position(of id: NodeID) -> Int? {
        id.rawValue >= lowerBound && id.rawValue < upperBound ? Int(id.rawValue - lowerBound) : nil
    }
}
