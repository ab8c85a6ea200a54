import DrillDownCore
import DrillDownFormats
#if canImport(Glibc)
    import Glibc
#endif

/// libFuzzer entry: reads each input as a json (see Scripts/fuzz.sh), then opens the same bytes
/// with the lazy index (``LazyJSONSource``, as files from 256 MiB are) and searches them: the
/// one-pass search, or the walk level by level when the file is not valid JSON.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let tree = fuzzRead(data, size, as: .json)
    fuzzLazy(data, size, full: tree)
    return 0
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
