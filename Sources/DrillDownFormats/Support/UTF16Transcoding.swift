/// Text documents in UTF-16 (recognized by their byte-order mark) are read as UTF-8.
enum UTF16Transcoding {
    /// The UTF-8 form of `input` when it starts with a UTF-16 byte-order mark, else `nil`.
    /// Unpaired surrogates become U+FFFD.
    static func utf8(fromMarked input: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard input.count >= 2 else { return nil }
        let bigEndian: Bool
        if input[0] == 0xFE && input[1] == 0xFF {
            bigEndian = true
        } else if input[0] == 0xFF && input[1] == 0xFE {
            bigEndian = false
        } else {
            return nil
        }
        var units: [UInt16] = []
        units.reserveCapacity(input.count / 2)
        var i = 2
        while i + 1 < input.count {
            units.append(bigEndian ? UInt16(input[i]) << 8 | UInt16(input[i + 1]) : UInt16(input[i + 1]) << 8 | UInt16(input[i]))
            i += 2
        }
        var out: [UInt8] = []
        out.reserveCapacity(units.count)
        for scalar in Unicode.UTF16.decode(units) { UTF8Validation.append(scalar, to: &out) }
        return out
    }

    /// Reads `input` with `parse`, first transcoding UTF-16 input; errors then carry line and column.
    static func withUTF8<T>(
        _ input: UnsafeBufferPointer<UInt8>, _ parse: (UnsafeBufferPointer<UInt8>) throws(ParseFailure) -> T
    ) throws(ParseFailure) -> T {
        guard let converted = utf8(fromMarked: input) else { return try parse(input) }
        let result: Result<T, ParseFailure> = converted.withUnsafeBufferPointer { buffer in
            do throws(ParseFailure) {
                return .success(try parse(buffer))
            } catch {
                var located = error
                located.knownLocation = SourceLocation.lineAndColumn(of: error.offset, in: buffer)
                return .failure(located)
            }
        }
        return try result.get()
    }
}

extension Unicode.UTF16 {
    /// The scalars of `units`, with U+FFFD for unpaired surrogates.
    static func decode(_ units: [UInt16]) -> [UInt32] {
        var result: [UInt32] = []
        result.reserveCapacity(units.count)
        var iterator = units.makeIterator()
        var decoder = Unicode.UTF16()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let s): result.append(s.value)
            case .emptyInput: return result
            case .error: result.append(0xFFFD)
            }
        }
    }
}
