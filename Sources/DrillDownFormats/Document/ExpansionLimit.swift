/// How far shared values may expand a document while it is read: YAML aliases and merge keys,
/// and binary property-list objects referenced more than once, are copied per use into the tree.
///
/// A few hundred bytes of aliases can otherwise stand for billions of nodes ("billion laughs"),
/// so a read stops with a ``FormatError`` naming the limit once the tree it would build holds
/// more nodes or more bytes of text than the limit allows for the input's size. Documents without
/// sharing never come near it: they hold at most one node and one byte of text per input byte.
///
/// ```swift
/// let generous = ExpansionLimit(factor: 1_000)
/// _ = try DocumentReader.read(contentsOf: "anchors.yaml", expansionLimit: generous)
/// ```
public struct ExpansionLimit: Sendable, Equatable {
    /// Nodes, and bytes of text, the tree may hold per byte of input (above the floors).
    public var factor: Int

    /// The fewest nodes any input may expand to.
    public static let floorNodes = 1_000_000
    /// The fewest bytes of text any input may expand to.
    public static let floorTextBytes = 64 << 20
    /// The default factor: 20 nodes and 20 bytes of text per input byte.
    public static let `default` = ExpansionLimit(factor: 20)

    /// Creates a limit of `factor` nodes and bytes of text per input byte (negative counts as 0).
    public init(factor: Int) { self.factor = max(0, factor) }

    /// The most nodes a document of `inputBytes` bytes may expand to.
    public func maxNodes(inputBytes: Int) -> Int { max(Self.floorNodes, scaled(inputBytes)) }

    /// The most bytes of text a document of `inputBytes` bytes may expand to.
    public func maxTextBytes(inputBytes: Int) -> Int { max(Self.floorTextBytes, scaled(inputBytes)) }

    private func scaled(_ inputBytes: Int) -> Int {
        let (product, overflow) = factor.multipliedReportingOverflow(by: max(0, inputBytes))
        return overflow ? Int.max : product
    }

    /// The error text for `what` (e.g. "aliases") expanding past `limit` `unit` ("nodes", "bytes of text").
    func message(_ what: String, limit: Int, unit: String) -> String {
        "\(what) expand to more than \(limit) \(unit) (expansion limit: \(factor) per input byte, at least "
            + "\(Self.floorNodes) nodes and \(Self.floorTextBytes) bytes); raise it with --expansion-limit"
    }
}

/// Addition that stops at `Int.max` instead of trapping: expanded sizes of aliased values grow exponentially.
extension Int {
    func saturatingAdd(_ other: Int) -> Int {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? Int.max : sum
    }
}
