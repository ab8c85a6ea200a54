/// Whether a JSON file is read whole into memory or indexed level by level as it is visited.
public enum IndexMode: String, Sendable, CaseIterable {
    /// Lazily from ``lazyThreshold`` bytes, whole below.
    case auto
    /// Always read whole (editable, searched through an index; memory about 2× the file).
    case full
    /// Always lazily (read-only; first screen after one scan of the top level).
    case lazy

    /// The file size from which `auto` indexes a JSON file lazily: above it a full read no longer
    /// opens within 2 s, and its store (about 1.5× the file) no longer fits 1.2× the file.
    public static let lazyThreshold = 256 << 20
}
