extension TreeStore {
    /// The first member, in document order, whose key an earlier member of the same object has, and
    /// that earlier member; `nil` when no object repeats a key. Writers refuse such a tree (see
    /// ``DuplicateKeys``): no reader would read back what it holds.
    /// - Complexity: O(n) expected.
    public func firstDuplicateKey() -> (node: NodeID, earlier: NodeID)? {
        var stack: [NodeID] = [root]
        while let id = stack.popLast() {
            let kind = kind(of: id)
            guard kind.isContainer else { continue }
            let members = children(of: id)
            if kind == .object, members.count > 1, let (later, earlier) = DuplicateKeys.first(members.map { keyBytes(of: $0) }) {
                return (members[members.index(members.startIndex, offsetBy: later)], members[members.index(members.startIndex, offsetBy: earlier)])
            }
            stack.append(contentsOf: members.reversed())
        }
        return nil
    }
}
