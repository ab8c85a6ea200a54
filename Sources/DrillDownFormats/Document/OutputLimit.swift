import DrillDownCore

/// How large a document ``DocumentWriter`` may write.
///
/// Text formats indent each line by its depth, so a deep tree writes far more than it reads: 40 KB
/// of JSON nesting 10 000 arrays around 10 000 numbers is 400 MB written back as pretty JSON, 200 MB
/// as YAML or an XML property list, 800 MB in OpenStep's four-space indent. A write over the limit
/// is refused with the size it would have had, and the file is left as it was.
///
/// ```swift
/// let limit = OutputLimit.default(inputBytes: 40_000)   // 256 MiB, or less on a small machine
/// try DocumentWriter.write(tree, to: "out.json", format: .json, limit: limit)
/// ```
public struct OutputLimit: Sendable, Equatable {
    /// The most bytes the output may have.
    public var bytes: Int
    /// How the limit was chosen, for the refusal's message.
    public var origin: String

    /// Outputs this many times the input's size are allowed by default…
    public static let inputFactor = 64
    /// …and never less than this (256 MiB), but never more than half the memory available, so that
    /// the output can be read back here.
    public static let floor = 256 << 20

    /// No limit.
    public static let unlimited = OutputLimit(bytes: Int.max, origin: "no limit")

    /// A limit of `bytes`, chosen as `origin` says (e.g. "--max-output 2G").
    public init(bytes: Int, origin: String) {
        self.bytes = max(0, bytes)
        self.origin = origin
    }

    /// The default for an output written from an input of `inputBytes` bytes: ``inputFactor`` times
    /// the input, at least ``floor``, at most half the memory this process may still take.
    public static func `default`(inputBytes: Int) -> OutputLimit {
        `default`(inputBytes: inputBytes, available: SystemMemory.available())
    }

    /// ``default(inputBytes:)`` with `available` bytes of memory (`nil`: unknown, no bound).
    public static func `default`(inputBytes: Int, available: Int?) -> OutputLimit {
        let (scaled, overflow) = max(0, inputBytes).multipliedReportingOverflow(by: inputFactor)
        var bytes = max(floor, overflow ? Int.max : scaled)
        if let available { bytes = min(bytes, available / 2) }
        let input = ByteCount(inputBytes).rounded
        return OutputLimit(
            bytes: bytes,
            origin: "the default: \(inputFactor) × the input's \(input), at least \(ByteCount(floor).rounded), "
                + "at most half the memory available")
    }

    /// Parses a size: a number of bytes, optionally with `K`, `M`, `G` or `T` (powers of 1024, `B`
    /// or `iB` may follow): `500M`, `2G`, `1.5G`, `1048576`. `nil` for anything else.
    public init?(parsing text: String) {
        var digits = text.filter { $0 != " " }.uppercased()[...]
        for suffix in ["IB", "B"] where digits.hasSuffix(suffix) {
            digits = digits.dropLast(suffix.count)
            break
        }
        var scale = 1.0
        if let unit = digits.last, let power = "KMGT".firstIndex(of: unit) {
            scale = pow1024("KMGT".distance(from: "KMGT".startIndex, to: power) + 1)
            digits = digits.dropLast()
        }
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }), let value = Double(digits),
            value * scale < 9.0e18
        else { return nil }
        self.init(bytes: Int((value * scale).rounded(.up)), origin: "--max-output \(text)")
    }

    /// The refusal of an output of `size` bytes.
    func refusal(size: Int, format: DocumentFormat) -> String {
        let suggestion = (size + (1 << 20) - 1) >> 20
        return "not written: the \(Self.name(of: format)) output would be \(ByteCount(size)), over the output limit of "
            + "\(ByteCount(bytes).rounded) (\(origin)); raise it with --max-output, e.g. --max-output \(suggestion)M"
    }
}

extension OutputLimit {
    /// The format's name in messages.
    static func name(of format: DocumentFormat) -> String {
        switch format {
        case .json: "JSON"
        case .yaml: "YAML"
        case .plistXML: "XML property list"
        case .plistBinary: "binary property list"
        case .plistOpenStep: "OpenStep property list"
        case .csv: "CSV"
        case .opml: "OPML"
        }
    }
}

private func pow1024(_ n: Int) -> Double { (0 ..< n).reduce(1.0) { value, _ in value * 1024 } }
