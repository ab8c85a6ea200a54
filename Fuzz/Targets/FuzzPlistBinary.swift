import DrillDownFormats

/// libFuzzer entry: reads each input as a binary property list (see Scripts/fuzz.sh).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    _ = fuzzRead(data, size, as: .plistBinary)
    return 0
}
