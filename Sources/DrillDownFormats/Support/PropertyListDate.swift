/// Dates as a ``TreeStore`` keeps them (ISO 8601 UTC text, `2001-01-01T00:00:00Z`) and as binary
/// property lists encode them (seconds since 2001-01-01 00:00:00 UTC).
enum PropertyListDate {
    /// Seconds from 1970-01-01 to 2001-01-01.
    static let referenceOffset: Double = 978_307_200

    /// The ISO 8601 text of `seconds` since 2001-01-01 UTC; fractions of a second are kept to the millisecond.
    static func text(sinceReferenceDate seconds: Double) -> String {
        guard seconds.isFinite, abs(seconds) < 1e14 else { return seconds > 0 ? "9999-12-31T23:59:59Z" : "0001-01-01T00:00:00Z" }
        let unix = seconds + referenceOffset
        let whole = unix.rounded(.down)
        var millis = Int(((unix - whole) * 1000).rounded())
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

    /// Seconds since 2001-01-01 UTC for ISO 8601 text `YYYY-MM-DD[THH:MM:SS[.fff]][Z|±HH:MM]`, or `nil`.
    static func seconds(fromText text: some Collection<UInt8>) -> Double? {
        let b = Array(text)
        var i = 0
        func number(_ digits: Int) -> Int? {
            guard i + digits <= b.count else { return nil }
            var v = 0
            for k in i ..< i + digits {
                guard b[k] >= 0x30 && b[k] <= 0x39 else { return nil }
                v = v * 10 + Int(b[k] - 0x30)
            }
            i += digits
            return v
        }
        func expect(_ c: UInt8) -> Bool {
            guard i < b.count, b[i] == c else { return false }
            i += 1
            return true
        }
        guard let year = number(4), expect(0x2D), let month = number(2), expect(0x2D), let day = number(2),
              (1 ... 12).contains(month), (1 ... 31).contains(day) else { return nil }
        var secondsOfDay = 0.0
        var zone = 0
        if i < b.count {
            guard expect(0x54) || expect(0x74) || expect(0x20), let h = number(2), expect(0x3A), let m = number(2), expect(0x3A),
                  let s = number(2), h < 24, m < 60, s < 61 else { return nil }
            secondsOfDay = Double(h * 3600 + m * 60 + s)
            if expect(0x2E) {
                var scale = 0.1
                let start = i
                while i < b.count, b[i] >= 0x30 && b[i] <= 0x39 {
                    secondsOfDay += Double(b[i] - 0x30) * scale
                    scale /= 10
                    i += 1
                }
                guard i > start else { return nil }
            }
            if expect(0x5A) || expect(0x7A) {
                zone = 0
            } else if i < b.count, b[i] == 0x2B || b[i] == 0x2D {
                let sign = b[i] == 0x2D ? -1 : 1
                i += 1
                guard let zh = number(2) else { return nil }
                var zm = 0
                if expect(0x3A) {
                    guard let v = number(2) else { return nil }
                    zm = v
                } else if let v = number(2) {
                    zm = v
                }
                zone = sign * (zh * 3600 + zm * 60)
            }
            guard i == b.count else { return nil }
        }
        let days = daysFromCivil(year, month, day)
        return Double(days) * 86_400 + secondsOfDay - Double(zone) - referenceOffset
    }

    /// The canonical text of an ISO 8601 date, or `nil` when `text` is not one.
    static func normalize(_ text: some Collection<UInt8>) -> String? {
        seconds(fromText: text).map { self.text(sinceReferenceDate: $0) }
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
    static func daysFromCivil(_ year: Int, _ month: Int, _ day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let m = Int64(month)
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The proleptic Gregorian date of `days` since 1970-01-01.
    static func civil(fromDays days: Int64) -> (Int, Int, Int) {
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
}
