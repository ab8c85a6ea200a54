import DrillDownCore
import DrillDownFormats

/// What every fuzz target does with one input: read it as `format`; an error is fine when it is
/// a ``FormatError`` with a message and a sane location, and a tree is fine when it is consistent.
/// Anything else (a trap, a sanitizer report, a hang, a memory blowup) is what libFuzzer catches.
func fuzzRead(_ data: UnsafePointer<UInt8>?, _ size: Int, as format: DocumentFormat) -> TreeStore? {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    do {
        let (tree, read) = try DocumentReader.read(bytes: bytes, file: "fuzz.\(format.fileExtension)", format: format)
        precondition(read == format, "read as \(read), asked for \(format)")
        checkConsistent(tree)
        return tree
    } catch {
        checkLocated(error)
        return nil
    }
}

/// Fails when an error lacks a message or names an impossible place.
func checkLocated(_ error: FormatError) {
    precondition(!error.message.isEmpty, "an error without a message")
    if let line = error.line { precondition(line >= 1, "line \(line) in \(error)") }
    if let column = error.column { precondition(column >= 1, "column \(column) in \(error)") }
}

/// Fails when the tree's parent and child links disagree; touches every title and value.
func checkConsistent(_ tree: TreeStore) {
    precondition(tree.count >= 1, "a tree without a root")
    precondition(tree.parent(of: tree.root) == nil, "the root has a parent")
    var seen = 1
    for index in 0 ..< tree.count {
        let id = NodeID(index)
        for child in tree.children(of: id) {
            precondition(tree.parent(of: child) == id, "child \(child) of \(id) names another parent")
            seen += 1
        }
        _ = tree.title(of: id)
        _ = tree.value(of: id)
    }
    precondition(seen == tree.count, "\(tree.count) nodes, \(seen) reachable as children")
}
