import DrillDownCore
@testable import DrillDownFormats
import Testing

@Suite("Format detection")
struct DetectionTests {
    @Test("file extensions name formats", arguments: [
        ("json", DocumentFormat.json), ("YAML", .yaml), ("yml", .yaml), (".plist", .plistXML), ("bplist", .plistBinary),
        ("strings", .plistOpenStep), ("openstep", .plistOpenStep),
    ])
    func extensions(_ ext: String, _ format: DocumentFormat) {
        #expect(DocumentFormat(fileExtension: ext) == format)
    }

    @Test("an unknown extension names no format")
    func unknownExtension() {
        #expect(DocumentFormat(fileExtension: "txt") == nil)
        #expect(DocumentFormat(fileExtension: "") == nil)
    }

    @Test("an extension that names a format decides; content decides among property-list encodings and for other names", arguments: [
        ("bplist00rest", "json", DocumentFormat.json),
        ("bplist00rest", "plist", .plistBinary),
        ("bplist00rest", "strings", .plistBinary),
        ("<?xml version=\"1.0\"?><plist/>", "json", .json),
        ("<?xml version=\"1.0\"?><plist/>", "strings", .plistXML),
        ("\u{FEFF}  <plist version=\"1.0\">", nil, .plistXML),
        ("<!DOCTYPE plist PUBLIC>", "yaml", .yaml),
        ("{\"a\": 1}", "plist", .plistOpenStep),
        ("[1, 2]", "plist", .plistOpenStep),
        ("{}", nil, .json),
        ("{ a = b; }", "json", .json),
        ("{ a = b; }", nil, .plistOpenStep),
        ("{ \"a\" = \"b\"; }", nil, .plistOpenStep),
        ("(a, b)", nil, .plistOpenStep),
        ("<00ff>", nil, .plistOpenStep),
        ("/* c */ \"k\" = \"v\";", nil, .plistOpenStep),
        ("\"k\" = \"v\";", "txt", .plistOpenStep),
        ("\"just a string\"", nil, .json),
        ("a: 1", nil, .yaml),
        ("a: 1", "json", .json),
        ("{a: 1}", "yml", .yaml),
        ("[1, 2]", "yaml", .yaml),
        ("42", nil, .yaml),
        ("", "plist", .plistXML),
        ("", nil, .json),
    ] as [(String, String?, DocumentFormat)])
    func byContent(_ text: String, _ ext: String?, _ format: DocumentFormat) {
        #expect(DocumentFormat.detect(Array(text.utf8), fileExtension: ext) == format)
    }

    @Test("a binary plist named .plist reads by content; one named .json is a JSON error; --format overrides")
    func misnamedFiles() throws {
        let binary = try DocumentWriter.data(TreeValue.seed.store, format: .plistBinary)
        let read = try DocumentReader.read(bytes: binary, file: "Data.plist")
        #expect(read.format == .plistBinary)
        #expect(TreeValue(read.tree) == TreeValue.seed)
        let error = try #require(readError(bytes: binary, file: "Data.json"))
        #expect(error.description.hasPrefix("Data.json:1:1: error: "))
        #expect(try DocumentReader.read(bytes: binary, file: "Data.json", format: .plistBinary).format == .plistBinary)
    }

    @Test("a given format overrides detection")
    func explicitFormat() {
        let error = readError("{\"a\": 1}", as: .plistOpenStep)
        #expect(error?.message == "expected '=' after dictionary key, found ':'")
    }
}
