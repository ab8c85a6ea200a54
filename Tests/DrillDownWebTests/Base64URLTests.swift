@testable import DrillDownWeb
import Foundation
import Testing

/// The session cookie's base64url: every value round-trips, each has one spelling, and anything
/// else is refused.
@Suite("Base64url")
struct Base64URLTests {
    @Test("random byte strings of every length round-trip, and agree with Foundation's base64")
    func roundTrip() {
        var generator = SystemRandomNumberGenerator()
        for length in 0 ..< 70 {
            for _ in 0 ..< 20 {
                let bytes = (0 ..< length).map { _ in UInt8.random(in: 0 ... 255, using: &generator) }
                let text = Base64URL.encode(bytes)
                let foundation = Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                    .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
                #expect(text == foundation)
                #expect(Base64URL.decode(text) == bytes)
            }
        }
    }

    @Test("characters outside the alphabet, impossible lengths and non-zero leftover bits are refused")
    func refused() {
        #expect(Base64URL.decode("YW5h") == Array("ana".utf8))
        #expect(Base64URL.decode("YW5h+") == nil)
        #expect(Base64URL.decode("YW4") == Array("an".utf8))
        #expect(Base64URL.decode("YW5") == nil)
        #expect(Base64URL.decode("Y") == nil)
        #expect(Base64URL.decode("YW=") == nil)
        // "QQ" is "A"; "QR" has the same first byte but bits left over: a second spelling.
        #expect(Base64URL.decode("QQ") == [65])
        #expect(Base64URL.decode("QR") == nil)
    }
}
