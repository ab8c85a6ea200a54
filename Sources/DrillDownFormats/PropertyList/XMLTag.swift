/// A start or end tag.
struct XMLTag {
    /// The tag's name bytes.
    var name: UnsafeBufferPointer<UInt8>
    /// The offset of its `<`.
    var offset: Int
    /// `</name>`.
    var isClose: Bool
    /// `<name/>`.
    var isEmpty: Bool

    func `is`(_ literal: StaticString) -> Bool {
        literal.withUTF8Buffer { name.elementsEqual($0) }
    }

    var nameText: String { String(decoding: name, as: UTF8.self) }
    var display: String { isClose ? "</\(nameText)>" : isEmpty ? "<\(nameText)/>" : "<\(nameText)>" }
}
