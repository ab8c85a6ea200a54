import DrillDownCore

/// Runs ``YAMLBlockReader`` and the event parser's path (``YAMLParser`` into ``YAMLStreamReader``,
/// else ``YAMLComposer``) on the same input and says where they disagree: the block reader must
/// build the parser's tree or decline. For the YAML fuzz target, which checks every input it makes with it (the tests use
/// the readers themselves).
///
/// ```swift
/// precondition(YAMLPathAgreement.disagreement(buffer) == nil)
/// ```
package enum YAMLPathAgreement {
    /// `nil` when `input` is not UTF-8 (the reader refuses it before either path), or the block
    /// reader declines it or builds the tree the parser's path builds; otherwise what differs.
    /// - Complexity: O(n) in the input size plus the size of the trees.
    package static func disagreement(_ input: UnsafeBufferPointer<UInt8>, limit: ExpansionLimit = .default) -> String? {
        guard UTF8Validation.firstInvalidOffset(in: input) == nil, let fast = (try? YAMLBlockReader.read(input, limit: limit)) ?? nil else { return nil }
        let slow: TreeStore
        if let tree = (try? YAMLStreamReader.read(input, limit: limit)) ?? nil {
            slow = tree
        } else {
            var composer = YAMLComposer(inputBytes: input.count, limit: limit)
            do throws(ParseFailure) {
                slow = composer.build(try composer.compose(input))
            } catch {
                return "the block reader accepted what the parser refuses: \(error.message)"
            }
        }
        guard fast.count == slow.count else { return "\(fast.count) nodes against the parser's \(slow.count)" }
        for node in fast.nodes {
            guard fast.kind(of: node) == slow.kind(of: node), fast.childCount(of: node) == slow.childCount(of: node),
                  fast.parent(of: node) == slow.parent(of: node), fast.keyBytes(of: node).elementsEqual(slow.keyBytes(of: node)),
                  fast.valueBytes(of: node).elementsEqual(slow.valueBytes(of: node))
            else { return "node \(node.rawValue) differs" }
        }
        return nil
    }
}
