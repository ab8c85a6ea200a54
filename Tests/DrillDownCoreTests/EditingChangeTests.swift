import Testing
@testable import DrillDownCore

@Suite("Editing: each change in the outline convention and in generic mode")
struct EditingChangeTests {
    func seedDocument() -> EditableDocument { EditableDocument(source: seedSource()) }

    func titles(_ doc: EditableDocument, _ path: TreePath = .root) -> [String] {
        let s = doc.source
        return s.children(of: s.node(at: path)!).map { s.title(of: $0) }
    }

    // MARK: Outline convention

    @Test("inserting a row adds a titled dictionary to the parent's children array")
    func outlineInsert() throws {
        var doc = seedDocument()
        let path = try doc.apply(.insert(NewNode(title: "Item 5", attributes: [Attribute(key: "plays", value: Scalar(.integer, "3"))]), parent: .root, index: nil))
        #expect(path == [4])
        #expect(titles(doc) == ["Item 1", "Item 2", "Item 3", "Item 4", "Item 5"])
        #expect(doc.source.attribute("plays", of: doc.source.node(at: [4])!) == Scalar(.integer, "3"))
        let first = try doc.apply(.insert(NewNode(title: "Item 0"), parent: .root, index: 0))
        #expect(first == [0])
        #expect(titles(doc).first == "Item 0")
        #expect(dump(doc.tree).hasPrefix("{Rows:[{Title:\"Item 0\"},{Title:\"Item 1\",Children:["))
    }

    @Test("inserting under a row without children creates its Children array")
    func outlineInsertCreatesChildren() throws {
        var doc = seedDocument()
        let a = try doc.apply(.insert(NewNode(title: "Leaf"), parent: [0, 0], index: nil))
        #expect(a == [0, 0, 0])
        #expect(doc.source.title(of: doc.source.node(at: a)!) == "Leaf")
        #expect(dump(doc.tree, doc.tree.storeNode(at: [0, 0, 1, 0])) == "{Title:\"Screen A\",Children:[{Title:\"Leaf\"}]}")
    }

    @Test("the children key's spelling follows the document")
    func outlineKeySpelling() throws {
        let lower: Doc = .object([("rows", .array([
            .object([("name", .string("a")), ("items", .array([.object([("name", .string("a1"))])]))]),
            .object([("name", .string("b"))]),
        ]))])
        var doc = EditableDocument(source: DocumentSource(tree: lower.tree))
        try doc.apply(.insert(NewNode(title: "b1"), parent: [1], index: nil))
        #expect(dump(doc.tree) == "{rows:[{name:\"a\",items:[{name:\"a1\"}]},{name:\"b\",items:[{name:\"b1\"}]}]}")
    }

    @Test("updating a title changes the title key; setting attributes adds, replaces and removes")
    func outlineTitleAndAttributes() throws {
        var doc = seedDocument()
        try doc.apply(.updateTitle([1, 0], title: "Screen B2"))
        #expect(titles(doc, [1]) == ["Screen B2"])
        try doc.apply(.setAttribute([1, 0], key: "plays", value: Scalar(.integer, "1")))
        #expect(dump(doc.tree, doc.tree.storeNode(at: [0, 1, 1, 0])) == "{Title:\"Screen B2\",plays:integer:1,Children:[{Title:\"Screen C\"}]}")
        try doc.apply(.setAttribute([1, 0], key: "PLAYS", value: Scalar(.integer, "2")))
        #expect(doc.source.attribute("plays", of: doc.source.node(at: [1, 0])!) == Scalar(.integer, "2"))
        try doc.apply(.setAttribute([1, 0], key: "plays", value: nil))
        #expect(doc.source.attributes(of: doc.source.node(at: [1, 0])!).isEmpty)
        try doc.apply(.updateTitle(.root, title: "Top"))
        #expect(doc.source.rootTitle == "Top")
    }

    @Test("deleting a row removes its subtree")
    func outlineDelete() throws {
        var doc = seedDocument()
        let before = doc.tree.count
        #expect(try doc.apply(.delete([3, 0])) == [3, 0])
        #expect(titles(doc, [3]).isEmpty)
        #expect(doc.tree.count == before - 11)  // G, H, I (dictionary, title, children each), J (two)
        try doc.apply(.delete([0]))
        #expect(titles(doc) == ["Item 2", "Item 3", "Item 4"])
    }

    @Test("moving reorders siblings and re-parents rows")
    func outlineMove() throws {
        var doc = seedDocument()
        #expect(try doc.apply(.move([3], parent: .root, index: 0)) == [0])
        #expect(titles(doc) == ["Item 4", "Item 1", "Item 2", "Item 3"])
        #expect(try doc.apply(.move([0], parent: .root, index: 1)) == [1])
        #expect(titles(doc) == ["Item 1", "Item 4", "Item 2", "Item 3"])
        // Screen G (under Item 4, now [1]) into Item 3 ([3]), after Screen D.
        #expect(try doc.apply(.move([1, 0], parent: [3], index: nil)) == [3, 1])
        #expect(titles(doc, [3]) == ["Screen D", "Screen G"])
        #expect(titles(doc, [3, 1, 0, 0]) == ["Screen J"])
        // Into a row that had no children; the moved row's old level is left empty.
        #expect(try doc.apply(.move([3, 1], parent: [0, 0], index: nil)) == [0, 0, 0])
        #expect(titles(doc, [0, 0]) == ["Screen G"])
        // Out of a deeper level to a shallower one placed before it.
        #expect(try doc.apply(.move([2, 0, 0], parent: [0], index: 0)) == [0, 0])
        #expect(titles(doc, [0]) == ["Screen C", "Screen A"])
    }

    // MARK: Generic mode

    func genericDocument() -> EditableDocument {
        let d: Doc = .object([
            ("name", .string("demo")),
            ("list", .array([.int(1), .int(2)])),
            ("nested", .object([("a", .bool(true))])),
        ])
        return EditableDocument(tree: d.tree, mode: .generic, name: "demo.json")
    }

    @Test("generic insert: keyed by the title in an object, an element in an array")
    func genericInsert() throws {
        var doc = genericDocument()
        #expect(try doc.apply(.insert(NewNode(title: "count", value: Scalar(.integer, "7")), parent: .root, index: nil)) == [3])
        #expect(try doc.apply(.insert(NewNode(title: "ignored", value: Scalar(.integer, "0")), parent: [1], index: 0)) == [1, 0])
        #expect(try doc.apply(.insert(NewNode(title: "obj", attributes: [Attribute(key: "x", value: Scalar(.string, "y"))]), parent: [2], index: nil)) == [2, 1])
        #expect(dump(doc.tree) == "{name:\"demo\",list:[integer:0,integer:1,integer:2],nested:{a:bool:true,obj:{x:\"y\"}},count:integer:7}")
    }

    @Test("generic title update renames the key; attributes are scalar members")
    func genericTitleAndAttributes() throws {
        var doc = genericDocument()
        try doc.apply(.updateTitle([2], title: "inner"))
        try doc.apply(.setAttribute(.root, key: "name", value: Scalar(.string, "renamed")))
        try doc.apply(.setAttribute([2], key: "a", value: nil))
        #expect(dump(doc.tree) == "{name:\"renamed\",list:[integer:1,integer:2],inner:{}}")
    }

    @Test("generic delete and move, including between arrays and objects")
    func genericDeleteMove() throws {
        var doc = genericDocument()
        #expect(try doc.apply(.move([1, 1], parent: [1], index: 0)) == [1, 0])
        #expect(try doc.apply(.move([2], parent: .root, index: 0)) == [0])
        #expect(dump(doc.tree) == "{nested:{a:bool:true},name:\"demo\",list:[integer:2,integer:1]}")
        #expect(try doc.apply(.move([0, 0], parent: [2], index: nil)) == [2, 2])
        #expect(try doc.apply(.move([2, 0], parent: [0], index: nil)) == [0, 0])
        #expect(dump(doc.tree) == "{nested:{0:integer:2},name:\"demo\",list:[integer:1,bool:true]}")
        try doc.apply(.delete([2]))
        #expect(dump(doc.tree) == "{nested:{0:integer:2},name:\"demo\"}")
    }

    // MARK: Validation

    @Test("invalid changes throw a typed error with a message and change nothing", arguments: [
        (Change.insert(NewNode(title: "x"), parent: [9], index: nil), "no node at TreePath 9"),
        (.insert(NewNode(title: "x"), parent: .root, index: 5), "index 5 is out of range"),
        (.insert(NewNode(title: "  "), parent: .root, index: nil), "a title cannot be empty"),
        (.insert(NewNode(title: "x", value: Scalar(.integer, "1")), parent: .root, index: nil), "give attributes, not a value"),
        (.insert(NewNode(title: "x", attributes: [Attribute(key: "Children", value: Scalar(.string, "y"))]), parent: .root, index: nil), "structural key"),
        (.updateTitle([0], title: ""), "a title cannot be empty"),
        (.setAttribute([0], key: "Title", value: Scalar(.string, "y")), "structural key"),
        (.setAttribute([0], key: "n", value: Scalar(.integer, "1.5")), "not a valid integer"),
        (.setAttribute([0], key: "missing", value: nil), "has no attribute 'missing'"),
        (.delete(.root), "the root cannot be deleted"),
        (.move([3], parent: [3, 0], index: nil), "into itself or its own subtree"),
        (.move([3], parent: [3], index: nil), "into itself or its own subtree"),
        (.move([0], parent: .root, index: 4), "index 4 is out of range"),
    ])
    func outlineValidation(change: Change, message: String) {
        var doc = seedDocument()
        let before = doc.tree
        #expect {
            try doc.apply(change)
        } throws: { error in
            (error as? EditError)?.description.contains(message) == true
        }
        #expect(doc.tree.isStructurallyEqual(to: before))
        #expect(!doc.canUndo)
    }

    @Test("generic validation: unique keys, array elements have no key to rename")
    func genericValidation() {
        var doc = genericDocument()
        #expect(throws: EditError.self) { try doc.apply(.insert(NewNode(title: "name", value: Scalar(.string, "x")), parent: .root, index: nil)) }
        #expect(throws: EditError.self) { try doc.apply(.updateTitle([2], title: "list")) }
        #expect(throws: EditError.self) { try doc.apply(.updateTitle([1, 0], title: "x")) }
        #expect(throws: EditError.self) { try doc.apply(.insert(NewNode(title: "x"), parent: [0], index: nil)) }
        #expect(throws: EditError.self) { try doc.apply(.setAttribute([2], key: "a", value: Scalar(.bool, "maybe"))) }
        #expect(throws: EditError.self) { try doc.apply(.setAttribute(.root, key: "list", value: Scalar(.bool, "true"))) }
    }

    @Test("a batch is one step and all or nothing")
    func batch() throws {
        var doc = seedDocument()
        let original = doc.tree
        #expect(throws: EditError.self) {
            try doc.apply([.delete([0]), .delete([9])])
        }
        #expect(doc.tree.isStructurallyEqual(to: original))
        let paths = try doc.apply([.delete([0]), .updateTitle([0], title: "Two")])
        #expect(paths == [[0], [0]])
        #expect(titles(doc) == ["Two", "Item 3", "Item 4"])
        doc.undo()
        #expect(doc.tree.isStructurallyEqual(to: original))
    }

    @Test("structural equality ignores layout and sees every difference")
    func equality() {
        let a = seed000.tree
        #expect(a.isStructurallyEqual(to: seed000.tree))
        #expect(!a.isStructurallyEqual(to: Doc.object([("Rows", .array([]))]).tree))
        let renamedKey: Doc = .object([("rows", .array([row("Item 1")]))])
        #expect(!Doc.object([("Rows", .array([row("Item 1")]))]).tree.isStructurallyEqual(to: renamedKey.tree))
        #expect(!Doc.array([.int(1)]).tree.isStructurallyEqual(to: Doc.array([.string("1")]).tree))
    }

    @Test("typed values: integers, reals and booleans keep their kinds")
    func inferring() {
        #expect(Scalar(inferring: "42") == Scalar(.integer, "42"))
        #expect(Scalar(inferring: "-3") == Scalar(.integer, "-3"))
        #expect(Scalar(inferring: "2.5") == Scalar(.real, "2.5"))
        #expect(Scalar(inferring: "true") == Scalar(.bool, "true"))
        #expect(Scalar(inferring: "nan") == Scalar(.string, "nan"))
        #expect(Scalar(inferring: "1.0.0") == Scalar(.string, "1.0.0"))
        #expect(Scalar(inferring: "") == Scalar(.string, ""))
        #expect(Scalar(inferring: "07") == Scalar(.string, "07"))
        #expect(Scalar(inferring: "0") == Scalar(.integer, "0"))
        #expect(Scalar(inferring: "-1e3") == Scalar(.real, "-1e3"))
        #expect(Scalar(inferring: ".5") == Scalar(.string, ".5"))
        #expect(Scalar(inferring: "1.") == Scalar(.string, "1."))
        #expect(Scalar(inferring: "+1") == Scalar(.string, "+1"))
        #expect(Scalar(inferring: "0.25") == Scalar(.real, "0.25"))
    }
}
