/// One attribute of a detail view as people read it: a label and the value formatted by the
/// schema (its `fields:` types and `formats:`), else by what the value is. Every front end's
/// detail shows these, so a date, a size or a length reads the same in the browser, the
/// terminal UI and `drilldown show`.
///
/// | value | label | text |
/// |---|---|---|
/// | `lastPinged: 2026-11-27T19:10:33Z` | Last Pinged | 2026-11-27 19:10 (a front end may use the reader's locale: ``Style/date(_:)``) |
/// | `bytes: 11170334` | Bytes | 10.7 MB |
/// | `length: 343` with `formats: { length: duration }` | Length | 5:43 |
/// | `enabled: true` | Enabled | Yes |
public struct DetailField: Sendable, Equatable {
    /// How a front end may show the value beyond its ``text``.
    public enum Style: Sendable, Equatable {
        /// Plain text.
        case text
        /// A date or instant; the payload is its ISO 8601 text (`2026-11-27T19:10:33Z` or
        /// `2026-11-27`), for a front end that formats it in the reader's locale.
        case date(String)
        /// A boolean (``text`` is Yes or No).
        case boolean(Bool)
    }

    /// The attribute's key.
    public var key: String
    /// What people read: the schema's label, else ``Field/readableLabel(_:)`` of the key.
    public var label: String
    /// The stored value.
    public var value: Scalar
    /// The value formatted for reading.
    public var text: String
    /// What the value is, for richer display.
    public var style: Style

    /// The attribute `key: value` as a detail shows it: `formats` (the schema's formatters for the
    /// key) when given, else the field's type (`field`: the row's form field for the key), else
    /// the value's kind, and a key that names a size in bytes (`bytes`, `size`, `fileSize`).
    public init(key: String, value: Scalar, field: Field?, formats: [Formatter] = []) {
        self.key = key
        self.value = value
        label = field?.readingLabel ?? Field.readableLabel(key)
        style = .text
        let raw = value.text
        if !formats.isEmpty {
            text = formats.reduce(raw) { $1.format($0) }
            if formats.contains(.date), let instant = Self.instant(value, epoch: true) { style = .date(instant) }
            return
        }
        switch field?.type ?? FieldType(inferredFrom: value.kind) {
        case .duration:
            text = Formatter.duration.format(raw)
        case .boolean where value.kind == .bool || ["true", "false"].contains(raw.lowercased()):
            let on = raw.lowercased() == "true"
            text = on ? "Yes" : "No"
            style = .boolean(on)
        case .integer where Self.isByteCount(key), .number where Self.isByteCount(key):
            text = Formatter.bytes.format(raw)
        default:
            if let instant = Self.instant(value) {
                text = Formatter.date.format(instant)
                style = .date(instant)
            } else {
                text = value.kind == .null ? "" : raw
            }
        }
    }

    /// The ISO 8601 text of a date value, or of a string that is one with a date and a time
    /// (a plain `2024` or `1.0` is not taken for a date); epoch seconds only when the schema
    /// formats them as a date.
    static func instant(_ value: Scalar, epoch: Bool = false) -> String? {
        switch value.kind {
        case .date: return ISO8601Text.date(value.text) ?? value.text
        case .string:
            guard value.text.count >= 10, let iso = ISO8601Text.date(value.text) else { return nil }
            return iso
        case .integer, .real:
            guard epoch else { return nil }
            return Double(value.text).map { ISO8601Text.text(unixSeconds: $0) }
        default: return nil
        }
    }

    /// Whether a key names a size in bytes.
    static func isByteCount(_ key: String) -> Bool {
        let k = key.lowercased()
        return k == "bytes" || k == "size" || k.hasSuffix("bytes") || k.hasSuffix("filesize") || k.hasSuffix("_size")
    }
}
