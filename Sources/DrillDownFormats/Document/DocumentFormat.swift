/// The encodings DrillDown reads and writes.
///
/// The raw value is the name used on the command line and in messages.
public enum DocumentFormat: String, Sendable, CaseIterable {
    /// JSON (RFC 8259).
    case json
    /// YAML 1.1 (the first and only document of the stream).
    case yaml
    /// An XML property list.
    case plistXML = "plist"
    /// A binary property list (`bplist00`).
    case plistBinary = "bplist"
    /// An OpenStep (NeXTSTEP) text property list, including `.strings` files.
    case plistOpenStep = "openstep"
    /// CSV (RFC 4180): one level of records, a header row naming the columns (see ``CSVReader``).
    case csv
    /// OPML 2.0: an outline of `<outline>` elements (see ``OPMLParser``).
    case opml

    /// The format a file extension names, case-insensitively: `json`; `yaml`, `yml`; `plist` (XML);
    /// `bplist`, `binaryplist`; `strings`, `openstep`, `pbxproj`; `csv`; `opml`. A leading dot is ignored.
    ///
    /// ```swift
    /// DocumentFormat(fileExtension: "yml")    // .yaml
    /// DocumentFormat(fileExtension: "txt")    // nil
    /// ```
    public init?(fileExtension: String) {
        var ext = fileExtension.lowercased()
        if ext.hasPrefix(".") { ext.removeFirst() }
        switch ext {
        case "json", "geojson": self = .json
        case "yaml", "yml": self = .yaml
        case "plist": self = .plistXML
        case "bplist", "binaryplist": self = .plistBinary
        case "strings", "openstep", "pbxproj": self = .plistOpenStep
        case "csv": self = .csv
        case "opml": self = .opml
        default: return nil
        }
    }

    /// The usual file extension for the format.
    public var fileExtension: String {
        switch self {
        case .json: "json"
        case .yaml: "yaml"
        case .plistXML, .plistBinary: "plist"
        case .plistOpenStep: "strings"
        case .csv: "csv"
        case .opml: "opml"
        }
    }

    /// Whether the format holds any tree (every format but CSV, which holds one level of records,
    /// and OPML, which holds an outline of text attributes).
    public var holdsAnyTree: Bool { self != .csv && self != .opml }

    /// The formats that hold any tree: what a document of any shape can be converted to.
    public static let treeFormats = allCases.filter(\.holdsAnyTree)

    /// Whether the format is one of the property-list encodings (which have no null).
    public var isPropertyList: Bool { self == .plistXML || self == .plistBinary || self == .plistOpenStep }
}
