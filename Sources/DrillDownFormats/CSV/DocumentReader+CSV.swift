import DrillDownCore

extension DocumentReader {
    /// Reads the CSV file at `path` with its values typed by `fields` (a schema kind's `fields:`,
    /// matched to the header by key, any case); columns without a field are inferred (see
    /// ``CSVReader``).
    /// - Throws: a ``FormatError`` with the line and column of the first malformed record or
    ///   refused value.
    public static func read(csv path: String, fields: [Field]) throws(FormatError) -> TreeStore {
        let bytes = try AtomicFile.read(path)
        let result: Result<TreeStore, FormatError> = bytes.withUnsafeBufferPointer { buffer in
            do throws(ParseFailure) {
                return .success(try CSVReader.read(buffer, fields: fields))
            } catch {
                return .failure(error.formatError(file: path, bytes: buffer))
            }
        }
        return try result.get()
    }
}
