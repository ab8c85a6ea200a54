import DrillDownCore
@testable import DrillDownFormats
import Testing

@Suite("Damaged input")
struct FuzzTests {
    @Test("truncated and mutated documents give a tree that writes back equal, or an error with its location", arguments: DocumentFormat.treeFormats)
    func mutations(_ format: DocumentFormat) throws {
        var value = TreeValue.seed
        if case .object(var members) = value {
            members.append(("extra", .object([("n", .integer("12")), ("r", .real("1.5")), ("d", .scalar(.data, "AAEC")), ("s", .string("é \"q\" <&>"))])))
            value = .object(members)
        }
        let good = try DocumentWriter.data(value.store, format: format)
        var rng = SeededGenerator(seed: 11)
        let specials: [UInt8] = Array("{}[]()<>\"'\\,;:=/*-!&#\n \t".utf8) + [0x00, 0x80, 0xC3, 0xFF]
        let iterations = format == .yaml ? 150 : 600
        for _ in 0 ..< iterations {
            var bytes = good
            switch Int.random(in: 0 ..< 4, using: &rng) {
            case 0: bytes.removeLast(Int.random(in: 1 ... bytes.count, using: &rng))
            case 1: bytes[Int.random(in: 0 ..< bytes.count, using: &rng)] = specials.randomElement(using: &rng)!
            case 2: bytes.remove(at: Int.random(in: 0 ..< bytes.count, using: &rng))
            default: bytes.insert(specials.randomElement(using: &rng)!, at: Int.random(in: 0 ... bytes.count, using: &rng))
            }
            expectTreeOrLocatedError(bytes, as: format)
        }
    }
}
