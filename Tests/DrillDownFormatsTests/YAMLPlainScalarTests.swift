@testable import DrillDownFormats
import Testing
import Yams

@Suite("YAML plain scalar resolution")
struct YAMLPlainScalarTests {
    static let samples = [
        "", "~", "null", "Null", "NULL", "nULL", "yes", "No", "ON", "off", "y", "true", "TRUE", "tRue", "<<", "=",
        "0", "-0", "+12", "012", "08", "0o17", "0o", "0b101", "0b", "0x1F", "0xg", "1_000", "1:30", "1:60", "1:5:07", "190:20:30",
        "1.5", "1.", ".5", "-.5", "+.5e+3", ".5e3", "1e3", "1E-3", "1e", "6.8523015e+5", "685.230_15e+03", "1:30.5",
        ".inf", "-.Inf", "+.INF", ".nan", ".NaN", "-.nan", "inf", "nan",
        "2001-12-14", "2001-12-14t21:59:43.10-05:00", "2001-12-14 21:59:43.10 -5", "2001-12-15T02:59:43.1Z", "2002-1-1", "2001-12-14T21:59",
        "1.2.3", "12abc", "-", "+", ".", "a1", "1 2", "0x_", "1__0", "_1",
    ]

    @Test("types plain scalars exactly as Yams' default resolver does", arguments: samples)
    func matchesYams(_ text: String) {
        let yams = Resolver.default.resolveTag(of: Node(text, Yams.Tag(.implicit), .plain))
        let ours: Yams.Tag.Name = switch YAMLPlainScalar.resolve(text) {
        case .null: .null
        case .bool: .bool
        case .int: .int
        case .float: .float
        case .timestamp: .timestamp
        case .merge: .merge
        case .string: text == "=" ? .value : .str
        }
        #expect(ours == yams, "\(text.debugDescription)")
    }
}
