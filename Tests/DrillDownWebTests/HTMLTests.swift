@testable import DrillDownWeb
import NIOCore
import Testing

/// `HTML` owns its bytes (copy-on-write storage written through pointers): what a page is built
/// with must read back as written, whatever the copies and growth on the way.
@Suite struct HTMLTests {
    @Test("pieces read back as written, escaped where asked, across growth") func piecesReadBack() {
        var html = HTML(capacity: 0)
        var expected = ""
        for k in 0 ..< 500 {
            html.write("<li id=\"n-")
            html.append(k - 250)
            html.append(ascii: UInt8(ascii: "\""))
            html.append(">")
            html.appendEscaped("a&b<c>\"d'e é \(k)")
            html += "</li>\n"
            expected += "<li id=\"n-\(k - 250)\">a&amp;b&lt;c&gt;&quot;d&#39;e é \(k)</li>\n"
        }
        html.append(Int.min)
        expected += String(Int.min)
        #expect(html.description == expected)
        #expect(html.count == expected.utf8.count)
        #expect(String(buffer: html.buffer) == expected)
        #expect(html.capacity >= html.count)
    }

    @Test("a copy keeps its bytes when the original writes on, and the other way round") func copiesAreIndependent() {
        var original = HTML("shared ")
        var copy = original
        original.append("original")
        copy.append("copy")
        #expect(original.description == "shared original")
        #expect(copy.description == "shared copy")
        // Appending a value to itself reads the bytes it had before the append.
        original.append(original)
        #expect(original.description == "shared originalshared original")
        #expect(HTML().isEmpty && HTML("").isEmpty)
    }
}
