import DrillDownCore

/// Tighter bounds of a document's node count than its size gives, for a reader whose arrays for
/// the size-based bound cannot be reserved (``TreeBuilder/nodeCapacity(atMost:textCapacity:counted:)``):
/// each costs one pass over the input, counting the bytes that can start a node.
///
/// A 200 MB YAML file of deep indentation holds some 20 000 nodes; reserving a node per two bytes
/// would take 2.5 GB of address space for them.
enum NodeBound {
    /// The node and text capacities of a YAML read without aliases: from the input's size (a node
    /// per two bytes, text twice the input: `y` is stored as `true`) when the system can give that
    /// much, else a counted node bound (``yaml(_:)``) and the text it allows: the input, a quarter
    /// more (a long hexadecimal integer's decimal digits) and 8 bytes per node (`n` is `false`).
    /// Text past a capacity makes the reader give up, never read wrong.
    static func yamlCapacities(_ buffer: UnsafeBufferPointer<UInt8>) -> (nodes: Int, text: Int) {
        let generous = (nodes: buffer.count / 2 + 16, text: 2 * buffer.count + 64)
        let nodes = TreeBuilder.nodeCapacity(atMost: generous.nodes, textCapacity: generous.text) { yaml(buffer) }
        guard nodes < generous.nodes else { return generous }
        return (nodes, min(generous.text, buffer.count + buffer.count / 4 + 8 * nodes + 64))
    }

    /// YAML read without aliases: every node but the root follows a `-` (a sequence entry), a `:`
    /// (a mapping's value), a `?` (an explicit key without a value), or a `[`, `{` or `,` (a flow
    /// collection's entry), so their count plus one bounds the nodes (plus slack).
    static func yaml(_ buffer: UnsafeBufferPointer<UInt8>) -> Int {
        count(in: buffer) { $0 == 0x2D || $0 == 0x3A || $0 == 0x3F || $0 == 0x5B || $0 == 0x7B || $0 == 0x2C } + 17
    }

    /// XML property lists: every node is an element, which starts with `<` and a name; end tags
    /// (`</`), keys (`<k`), declarations and comments (`<?`, `<!`) are no nodes.
    static func xml(_ buffer: UnsafeBufferPointer<UInt8>) -> Int {
        guard buffer.count > 1 else { return 2 }
        var n = 0
        for i in 0 ..< buffer.count - 1 where buffer[i] == 0x3C {
            let next = buffer[i + 1]
            if next != 0x2F && next != 0x6B && next != 0x3F && next != 0x21 { n &+= 1 }
        }
        return n + 2
    }

    @inline(__always)
    private static func count(in buffer: UnsafeBufferPointer<UInt8>, _ starts: (UInt8) -> Bool) -> Int {
        var n = 0
        for byte in buffer where starts(byte) { n &+= 1 }
        return n
    }
}
