/// A reservation the system refused: the reader stops with this instead of letting the runtime abort.
public struct ReservationFailure: Error, Sendable, CustomStringConvertible {
    /// The bytes asked for.
    public var bytes: Int
    /// What they were for, e.g. "the tree's arrays".
    public var purpose: String

    public init(bytes: Int, purpose: String) {
        self.bytes = bytes
        self.purpose = purpose
    }

    /// "not enough memory: 5.0 GB for the tree's arrays could not be reserved …".
    public var description: String {
        "not enough memory to read this document: \(ByteCount(bytes)) for \(purpose) could not be reserved "
            + "(address-space limit or memory exhausted; see `ulimit -v`)"
    }
}
