import DrillDownCore

/// Dates as a ``TreeStore`` keeps them (ISO 8601 UTC text, `2001-01-01T00:00:00Z`) and as binary
/// property lists encode them (seconds since 2001-01-01 00:00:00 UTC).
enum PropertyListDate {
    /// Seconds from 1970-01-01 to 2001-01-01.
    static let referenceOffset: Double = 978_307_200

    /// The ISO 8601 text of `seconds` since 2001-01-01 UTC; fractions of a second are kept to the millisecond.
    static func text(sinceReferenceDate seconds: Double) -> String {
        ISO8601Text.text(unixSeconds: seconds + referenceOffset)
    }

    /// The first and last instants (seconds since 2001-01-01 UTC, to the millisecond) whose ISO 8601
    /// text has a four-digit year from 0001 to 9999, the range every reader and writer accepts.
    static let writableRange: ClosedRange<Double> =
        Double(ISO8601Text.daysFromCivil(1, 1, 1)) * 86_400 - referenceOffset
        ... Double(ISO8601Text.daysFromCivil(10_000, 1, 1)) * 86_400 - referenceOffset - 0.001

    /// The ISO 8601 text of `seconds` since 2001-01-01 UTC, or `nil` when it is not a number or
    /// falls outside ``writableRange`` (it could be read but never written back).
    static func writableText(sinceReferenceDate seconds: Double) -> String? {
        guard seconds.isFinite, writableRange.contains(seconds) else { return nil }
        let result = text(sinceReferenceDate: seconds)
        // Rounding to the millisecond must not carry the text past the range either.
        guard result.utf8.count >= 20, !result.hasPrefix("0000"), Self.seconds(fromText: result.utf8) != nil else { return nil }
        return result
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
        let days = ISO8601Text.daysFromCivil(year, month, day)
        return Double(days) * 86_400 + secondsOfDay - Double(zone) - referenceOffset
    }

    /// The canonical text of an ISO 8601 date, or `nil` when `text` is not one.
    static func normalize(_ text: some Collection<UInt8>) -> String? {
        seconds(fromText: text).map { self.text(sinceReferenceDate: $0) }
    }
}
