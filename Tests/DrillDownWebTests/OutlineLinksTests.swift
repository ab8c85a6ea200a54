import DrillDownCore
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
@testable import DrillDownWeb

/// Issue 31 item 6: the outline's titles keep you in the outline (toggle, or a leaf's detail whose
/// Back returns to the same outline), and a row added from the outline shows under its parent.
@Suite("Outline links")
struct OutlineLinksTests {
    @Test("a title with children toggles in the outline; a leaf opens its detail from the outline")
    func cellLinks() async throws {
        try await seedApp().test(.router) { client in
            try await client.execute(uri: "/outline?open=0", method: .get) { response in
                let html = response.text
                #expect(html.contains("href=\"/d/0.0?outline=open%3D0\""))
                #expect(html.contains("href=\"/outline?open=0,1&amp;focus=1#n-1\""))
            }
            try await client.execute(uri: "/api/outline?open=0", method: .get) { response in
                let rows = response.json["rows"] as? [[String: Any]] ?? []
                #expect(rows.compactMap { $0["href"] as? String }.prefix(3) == ["/outline?focus=0#n-0", "/d/0.0?outline=open%3D0", "/outline?open=0,1&focus=1#n-1"])
            }
        }
    }

    @Test("a detail opened from the outline goes Back to that outline with the leaf focused")
    func detailBack() async throws {
        try await seedApp().test(.router) { client in
            try await client.execute(uri: "/d/0.0?outline=open%3D0%26offset%3D3", method: .get) { response in
                let html = response.text
                #expect(html.contains("id=\"back\""))
                #expect(html.contains("href=\"/outline?open=0&amp;focus=0.0&amp;offset=3#n-0.0\""))
                #expect(html.contains("<span class=\"back-label\">Outline</span>"))
            }
            try await client.execute(uri: "/d/0.0", method: .get) { response in
                #expect(!response.text.contains("<span class=\"back-label\">Outline</span>"))
            }
        }
    }

    @Test("after an add, an outline Back URL opens the new row's ancestors and focuses it")
    func revealing() {
        #expect(OutlineState.revealing(TreePath([2, 2]), after: "/outline?edit=1&focus=2") == "/outline?open=2&edit=1&focus=2.2#n-2.2")
        #expect(OutlineState.revealing(TreePath([1, 0, 4]), after: "/outline?all=1&closed=1,3&edit=1#n-1") == "/outline?all=1&closed=3&edit=1&focus=1.0.4#n-1.0.4")
        #expect(OutlineState.revealing(TreePath([2, 2]), after: "/l/2") == "/l/2")
    }
}
