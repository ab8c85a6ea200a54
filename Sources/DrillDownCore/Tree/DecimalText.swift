/// Short texts of numbers written digit by digit into a small string: a level page makes one per
/// row (an array element's title is its index, a row's subtitle "7 items"), where `String(n)` and
/// an interpolation went through `description`, a string append and a concatenation each.
public enum DecimalText {
    /// `n` in decimal, as `String(n)` writes it.
    public static func string(_ n: Int) -> String {
        guard n >= 0, n < 1_000_000_000_000_000 else { return String(n) }
        return String(unsafeUninitializedCapacity: 15) { buffer in write(n, into: buffer, at: 0) }
    }

    /// "1 item" or "N items", as a row's subtitle counts its children.
    public static func items(_ n: Int) -> String {
        if n == 1 { return "1 item" }
        guard n >= 0, n < 1_000_000_000 else { return "\(n) items" }
        return String(unsafeUninitializedCapacity: 15) { buffer in
            var end = write(n, into: buffer, at: 0)
            for byte in " items".utf8 {
                buffer[end] = byte
                end += 1
            }
            return end
        }
    }

    /// Writes the digits of `n` (0 ≤ n < 10^15) at `start`; returns the index after the last.
    private static func write(_ n: Int, into buffer: UnsafeMutableBufferPointer<UInt8>, at start: Int) -> Int {
        var digits = 1
        var rest = n / 10
        while rest > 0 {
            digits += 1
            rest /= 10
        }
        var v = n
        var i = start + digits
        repeat {
            i -= 1
            buffer[i] = UInt8(truncatingIfNeeded: 48 + v % 10)
            v /= 10
        } while v > 0
        return start + digits
    }
}
