import Testing
@testable import DrillDownCore

@Suite struct DecimalTextTests {
    @Test("numbers read as String(n) writes them, and counts as 'N items'")
    func decimals() {
        for n in [0, 1, 7, 9, 10, 99, 100, 12345, 999_999_999, 1_000_000_000, 999_999_999_999_999, 1_000_000_000_000_000, -1, Int.min, Int.max] {
            #expect(DecimalText.string(n) == String(n))
            #expect(DecimalText.items(n) == (n == 1 ? "1 item" : "\(n) items"))
        }
        for n in stride(from: 0, to: 1_000_000, by: 997) { #expect(DecimalText.string(n) == String(n)) }
    }
}
