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

    @Test("content decides before the extension", arguments: [
        ("bplist00rest", "json", DocumentFormat.plistBinary),
        ("<?xml version=\"1.0\"?><plist/>", "json", .plistXML),
        ("\u{FEFF}  <plist version=\"1.0\">", nil, .plistXML),
        ("<!DOCTYPE plist PUBLIC>", "yaml", .plistXML),
        ("{\"a\": 1}", "plist", .json),
        ("[1, 2]", "plist", .json),
        ("{}", nil, .json),
        ("{ a = b; }", "json", .plistOpenStep),
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

    @Test("a JSON file named .plist and a binary plist named .json read by content")
    func misnamedFiles() throws {
        let json = try DocumentReader.read(bytes: Array(#"{"Rows": []}"#.utf8), file: "Data.plist")
        #expect(json.format == .json)
        let binary = try DocumentWriter.data(TreeValue.seed.store, format: .plistBinary)
        let read = try DocumentReader.read(bytes: binary, file: "Data.json")
        #expect(read.format == .plistBinary)
        #expect(TreeValue(read.tree) == TreeValue.seed)
    }

    @Test("a given format overrides detection")
    func explicitFormat() {
        let error = readError("{\"a\": 1}", as: .plistOpenStep)
        #expect(error?.message == "expected '=' after dictionary key, found ':'")
    }
}
