import DrillDownCore

/// An input buffer a reader may keep instead of copying from it: the input's bytes at `base`,
/// followed at `appendFrom` by writable room up to `capacity` bytes, all kept mapped while
/// `keeper` lives. The JSON reader makes the store's text this region (``TextRegion``): plain
/// keys and values stay slices of the input, decoded ones go into the room after it.
struct InputLoan {
    let base: UnsafePointer<UInt8>
    /// Where the writable room starts (at or after the input's end).
    let appendFrom: Int
    /// Bytes from `base` that may be read, and from `appendFrom` written.
    let capacity: Int
    /// Whatever frees the memory when it is released.
    let keeper: AnyObject & Sendable

    /// The region for a store's text; it keeps ``keeper`` alive.
    func region() -> TextRegion {
        TextRegion(base: base, count: capacity, owner: keeper)
    }
}

/// Memory a copied input is lent from (``DocumentReader/read(lendingCopyOf:file:format:)``).
final class LentCopy: @unchecked Sendable {
    let base: UnsafeMutablePointer<UInt8>

    init(capacity: Int) { base = .allocate(capacity: capacity) }

    deinit { base.deallocate() }
}

extension DocumentReader {
    /// Reads `bytes` as a mapped file is read (``MappedFile``): from a copy followed by as much room
    /// again, which a JSON tree keeps as its text. For tests and the fuzzer, which compare it with
    /// ``read(bytes:file:format:expansionLimit:)``.
    package static func read(lendingCopyOf bytes: [UInt8], file: String, format: DocumentFormat? = nil) throws(FormatError) -> TreeStore {
        let appendFrom = bytes.count + 64, capacity = appendFrom + bytes.count + 64
        let copy = LentCopy(capacity: capacity)
        bytes.withUnsafeBufferPointer { _ = UnsafeMutableBufferPointer(start: copy.base, count: bytes.count).initialize(fromContentsOf: $0) }
        let loan = InputLoan(base: copy.base, appendFrom: appendFrom, capacity: capacity, keeper: copy)
        return try read(
            buffer: UnsafeBufferPointer(start: copy.base, count: bytes.count), file: file, format: format, lending: loan
        ).tree
    }
}
