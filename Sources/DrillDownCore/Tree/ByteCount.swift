/// A byte count for messages: exact bytes with a rounded binary unit, e.g. `419430400 bytes (400 MiB)`.
public struct ByteCount: CustomStringConvertible, Sendable {
    public var bytes: Int
    public init(_ bytes: Int) { self.bytes = bytes }

    public var description: String {
        "\(bytes) bytes" + (bytes >= 1024 ? " (\(rounded))" : "")
    }

    /// The count in the largest binary unit it reaches, one decimal when under 10: `1.5 GiB`, `381 MiB`.
    public var rounded: String {
        let units = ["bytes", "KiB", "MiB", "GiB", "TiB", "PiB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        let shown = value < 10 && unit > 0 ? (value * 10).rounded(.down) / 10 : value.rounded(.down)
        let text = shown == shown.rounded() ? String(Int(shown)) : String(shown)
        return "\(text) \(units[unit])"
    }
}
