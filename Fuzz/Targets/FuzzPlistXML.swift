import DrillDownFormats

/// libFuzzer entry: reads each input as a XML property list (see Scripts/fuzz.sh).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    _ = fuzzRead(data, size, as: .plistXML)
    return 0
}
