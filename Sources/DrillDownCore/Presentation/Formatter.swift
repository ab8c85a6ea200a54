import Foundation

/// A named value formatter usable in templates as `{key|name}`.
///
/// `duration` 343 → `5:43`, 3725 → `1:02:05`; `date` ISO 8601 or epoch seconds → `2026-11-23 10:50`;
/// `number` 1234567 → `1,234,567`; `bytes` 1536 → `1.5 KB`; `upper`, `lower`.
public enum Formatter: String, Sendable, CaseIterable {
    case duration, date, number, bytes, upper, lower

    /// Formats `text`; values the formatter cannot read are returned unchanged.
    public func format(_ text: String) -> String {
        switch self {
        case .upper: return text.uppercased()
        case .lower: return text.lowercased()
        case .duration:
            guard let v = Double(text.trimmingCharacters(in: .whitespaces)), v.isFinite else { return text }
            let total = Int(v.rounded())
            let sign = total < 0 ? "-" : ""
            let s = abs(total)
            let (h, m, sec) = (s / 3600, (s % 3600) / 60, s % 60)
            return h > 0 ? "\(sign)\(h):\(pad(m)):\(pad(sec))" : "\(sign)\(m):\(pad(sec))"
        case .number:
            guard let v = Double(text.trimmingCharacters(in: .whitespaces)), v.isFinite else { return text }
            return Self.grouped(v)
        case .bytes:
            guard let v = Double(text.trimmingCharacters(in: .whitespaces)), v.isFinite else { return text }
            let units = ["bytes", "KB", "MB", "GB", "TB", "PB"]
            var value = v
            var unit = 0
            while abs(value) >= 1024, unit < units.count - 1 {
                value /= 1024
                unit += 1
            }
            if unit == 0 { return "\(Int(value)) \(Int(value) == 1 ? "byte" : "bytes")" }
            let rounded = (value * 10).rounded() / 10
            return rounded == rounded.rounded() ? "\(Int(rounded)) \(units[unit])" : "\(rounded) \(units[unit])"
        case .date:
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            if let epoch = Double(trimmed) { return Self.render(Date(timeIntervalSince1970: epoch)) }
            if let date = Self.parseISO(trimmed) { return Self.render(date) }
            return text
        }
    }

    func pad(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }

    static func grouped(_ v: Double) -> String {
        let negative = v < 0
        let magnitude = abs(v)
        let whole = Int(magnitude.rounded(.towardZero))
        var digits = String(whole)
        var groups: [String] = []
        while digits.count > 3 {
            groups.insert(String(digits.suffix(3)), at: 0)
            digits.removeLast(3)
        }
        groups.insert(digits, at: 0)
        var result = groups.joined(separator: ",")
        let fraction = magnitude - Double(whole)
        if fraction > 0.0000001 {
            let f = String(format: "%.2f", fraction)
            result += f.dropFirst(1).replacingOccurrences(of: "0+$", with: "", options: .regularExpression)
        }
        return (negative ? "-" : "") + result
    }

    static func parseISO(_ text: String) -> Date? {
        let full = ISO8601DateFormatter()
        if let d = full.date(from: text) { return d }
        let dateOnly = ISO8601DateFormatter()
        dateOnly.formatOptions = [.withFullDate]
        return dateOnly.date(from: text)
    }

    static func render(_ date: Date) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyy-MM-dd HH:mm"
        let s = f.string(from: date)
        return s.hasSuffix(" 00:00") ? String(s.dropLast(6)) : s
    }
}
