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
        TextRegion(base: base, count: capacity) { [keeper] in withExtendedLifetime(keeper) {} }
    }
}
