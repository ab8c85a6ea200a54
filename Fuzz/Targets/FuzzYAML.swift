import DrillDownFormats

/// libFuzzer entry: reads each input as a yaml (see Scripts/fuzz.sh), and checks that DrillDown's
/// block-style scanner builds the YAML 1.2 event parser's tree from it or leaves it to that parser.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    _ = fuzzRead(data, size, as: .yaml)
    if let data, size > 0, let difference = YAMLPathAgreement.disagreement(UnsafeBufferPointer(start: data, count: size)) {
        preconditionFailure("block reader against the event parser: \(difference)")
    }
    return 0
}
