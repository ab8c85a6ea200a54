/// Dates as the tree stores them: ISO 8601 text in UTC (`2001-01-01T00:00:00Z`), made without
/// Foundation's formatters so readers, writers and actions agree to the byte.
public enum ISO8601Text {
    /// The text of `seconds` since 1970-01-01 UTC; fractions of a second are kept to the millisecond.
    public static func text(unixSeconds seconds: Double) -> String {
        guard seconds.isFinite, abs(seconds) < 1e14 else { return seconds > 0 ? "9999-12-31T23:59:59Z" : "0001-01-01T00:00:00Z" }
        let whole = seconds.rounded(.down)
        var millis = Int(((seconds - whole) * 1000).rounded())
        var total = Int64(whole)
        if millis == 1000 {
            millis = 0
            total += 1
        }
        let days = total >= 0 ? total / 86_400 : (total - 86_399) / 86_400
        let secondsOfDay = Int(total - days * 86_400)
        let (year, month, day) = civil(fromDays: days)
        var result = pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2)
        result += "T" + pad(secondsOfDay / 3600, 2) + ":" + pad(secondsOfDay / 60 % 60, 2) + ":" + pad(secondsOfDay % 60, 2)
        if millis > 0 {
            var fraction = pad(millis, 3)
            while fraction.hasSuffix("0") { fraction.removeLast() }
            result += "." + fraction
        }
        return result + "Z"
    }

    /// `text` when it is an ISO 8601 date people type: `2024-05-01`, `2024-05-01T10:30`,
    /// `2024-05-01T10:30:00Z`, `2024-05-01 10:30:00+02:00` (a space becomes `T`); else `nil`.
    /// The month and day must exist (`2023-02-29` is refused).
    public static func date(_ text: String) -> String? {
        let b = Array(text.utf8)
        func digits(_ at: Int, _ n: Int) -> Int? {
            guard at + n <= b.count else { return nil }
            var v = 0
            for i in at ..< at + n {
                guard b[i] >= 48, b[i] <= 57 else { return nil }
                v = v * 10 + Int(b[i] - 48)
            }
            return v
        }
        guard b.count >= 10, let y = digits(0, 4), b[4] == 45, let m = digits(5, 2), b[7] == 45, let d = digits(8, 2),
              (1 ... 12).contains(m), d >= 1
        else { return nil }
        let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)
        let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1]
        guard d <= days else { return nil }
        if b.count == 10 { return text }
        guard b[10] == 84 || b[10] == 32, let h = digits(11, 2), h < 24, b.count > 13, b[13] == 58, let mi = digits(14, 2), mi < 60 else { return nil }
        var i = 16
        if i < b.count, b[i] == 58 {
            guard let s = digits(i + 1, 2), s < 61 else { return nil }
            i += 3
            if i < b.count, b[i] == 46 {
                i += 1
                let start = i
                while i < b.count, b[i] >= 48, b[i] <= 57 { i += 1 }
                guard i > start else { return nil }
            }
        }
        if i < b.count {
            if b[i] == 90 {
                i += 1
            } else if b[i] == 43 || b[i] == 45 {
                guard let oh = digits(i + 1, 2), oh < 24, i + 3 < b.count, b[i + 3] == 58, digits(i + 4, 2) != nil else { return nil }
                i += 6
            } else {
                return nil
            }
        }
        guard i == b.count else { return nil }
        return b[10] == 32 ? String(text.prefix(10)) + "T" + String(text.dropFirst(11)) : text
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
    public static func daysFromCivil(_ year: Int, _ month: Int, _ day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let m = Int64(month)
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The proleptic Gregorian `(year, month, day)` of `days` since 1970-01-01.
    public static func civil(fromDays days: Int64) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        return (Int(year), Int(month), Int(day))
    }

    static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
