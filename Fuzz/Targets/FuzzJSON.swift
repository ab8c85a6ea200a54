import DrillDownCore
import DrillDownFormats
#if canImport(Glibc)
    import Glibc
#endif

/// libFuzzer entry: reads each input as a json (see Scripts/fuzz.sh), again as a mapped file is
/// read (the tree keeps the input as its text, see ``TextBytes``), then opens the same bytes with
/// the lazy index (``LazyJSONSource``, as files from 256 MiB are) and searches them: the one-pass
/// search, or the walk level by level when the file is not valid JSON.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let tree = fuzzRead(data, size, as: .json)
    fuzzLent(data, size, full: tree)
    fuzzLazy(data, size, full: tree)
    return 0
}

/// Reads the input from a copy its tree keeps as its text; it must give the full read's tree
/// (the same kinds, keys, values and links) or fail where it fails.
func fuzzLent(_ data: UnsafePointer<UInt8>?, _ size: Int, full tree: TreeStore?) {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    let lent: TreeStore
    do { lent = try DocumentReader.read(lendingCopyOf: bytes, file: "fuzz.json", format: .json) } catch {
        checkLocated(error)
        precondition(tree == nil, "the full read took what the lent read refused: \(error)")
        return
    }
    guard let tree else { preconditionFailure("the lent read took what the full read refused") }
    checkConsistent(lent)
    precondition(lent.count == tree.count, "lent \(lent.count) nodes, full \(tree.count)")
    for (a, b) in zip(lent.nodes, tree.nodes) {
        precondition(lent.kind(of: a) == tree.kind(of: b) && lent.childCount(of: a) == tree.childCount(of: b), "node \(a): other shape")
        precondition(lent.keyBytes(of: a) == tree.keyBytes(of: b) && lent.valueBytes(of: a) == tree.valueBytes(of: b), "node \(a): other text")
    }
}

/// The file the lazy index maps, rewritten for each input.
let lazyPath = "/dev/shm/drilldown-fuzz-\(getpid()).json"

/// Opens the input lazily and searches it; when the full read gave a tree, the lazy search must
/// find what a search of that tree finds (the same total and paths).
func fuzzLazy(_ data: UnsafePointer<UInt8>?, _ size: Int, full tree: TreeStore?) {
    let fd = open(lazyPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    precondition(fd >= 0, "cannot write \(lazyPath)")
    if let data, size > 0 { precondition(write(fd, data, size) == size, "short write to \(lazyPath)") }
    close(fd)
    let lazy: LazyJSONSource
    do { lazy = try LazyJSONSource(path: lazyPath) } catch {
        checkLocated(error)
        precondition(tree == nil, "the full read took what the lazy index refused: \(error)")
        return
    }
    let full = tree.map { DocumentSource(tree: $0, mode: lazy.mode) }
    for text in ["a", "1", "e"] {
        for values in [false, true] {
            let query = SearchQuery(text, includeValues: values, limit: 3)
            let found = lazy.find(query)
            guard let full else { continue }
            let expected = full.find(query)
            precondition(found.total == expected.total, "\(text) \(values): lazy \(found.total), full \(expected.total)")
            precondition(found.hits.map { lazy.path(of: $0) } == expected.hits.map { full.path(of: $0) }, "\(text) \(values): other paths")
        }
    }
    if full != nil { precondition(lazy.readFailures.count == 0, "a valid document failed a lazy read: \(lazy.readFailures)") }
}
