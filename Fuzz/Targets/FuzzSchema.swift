import DrillDownCore
import DrillDownFormats

/// libFuzzer entry: reads each input as a JSON presentation schema the way `--schema` does
/// (``SchemaFile``: the document, the schema, and on a schema error the line found again in the
/// text). JSON rather than YAML, so that the YAML reader's own bugs do not stop this run
/// (`fuzz-yaml` covers those).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    do {
        let loaded = try SchemaFile(bytes: bytes, file: "fuzz-schema.json", format: .json)
        checkConsistent(loaded.tree)
    } catch let error as FormatError {
        checkLocated(error)
    } catch let error as SchemaError {
        precondition(!error.message.isEmpty, "a schema error without a message")
        if let line = error.line { precondition(line >= 1 && (error.column ?? 1) >= 1, "bad position in \(error)") }
    } catch {
        preconditionFailure("unexpected error \(error)")
    }
    return 0
}
