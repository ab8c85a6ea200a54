import DrillDownCore

extension EmbeddedJSON {
    /// Text values read with the JSON reader (its depth limit, a 16 MiB budget per value) and
    /// written back compactly with keys in their order: what `DrillDown.open` gives documents.
    public static let formats = EmbeddedJSON(
        read: { bytes in
            bytes.withUnsafeBufferPointer { buffer in try? JSONReader.read(buffer) }
        },
        write: { tree in try? JSONWriter.compactText(tree) })
}
