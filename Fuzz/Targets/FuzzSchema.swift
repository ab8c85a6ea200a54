import DrillDownCore
import DrillDownFormats

/// libFuzzer entry: reads each input as a JSON presentation schema (JSON rather than YAML so
/// that the YAML reader's own bugs do not stop this run; `fuzz-yaml` covers those).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let tree = fuzzRead(data, size, as: .json) else { return 0 }
    do {
        _ = try Schema(tree: tree, file: "fuzz-schema.json")
    } catch {
        precondition(!error.message.isEmpty, "a schema error without a message")
    }
    return 0
}
