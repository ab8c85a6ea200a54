extension DocumentFormat {
    /// The format of a document: the one its file extension names, else judged by its content.
    ///
    /// - `.json` is JSON and `.yaml`/`.yml` YAML, whatever the content (a misnamed file gets the
    ///   named format's error, never a silent reading in another format);
    /// - the property-list extensions (`.plist`, `.strings`, `.bplist`, `.openstep`, `.pbxproj`)
    ///   name the property-list family, whose three encodings share them as Apple's own reader
    ///   does: `bplist` magic is binary, `<?xml`, `<!DOCTYPE plist`, `<plist`, `<!--` or a UTF-16
    ///   byte-order mark is XML, anything else the extension's own encoding (`.plist`: OpenStep
    ///   text unless empty);
    /// - with no known extension, the content decides: `bplist` magic; XML markers; `[`: JSON;
    ///   `(`, `<`, `//`, `/*`: OpenStep; `{`: JSON when its first member looks like `"key":` (or it
    ///   is `{}`), OpenStep when it looks like `key =` or `"key" =`; `"`: OpenStep when the string
    ///   is followed by `=` or `;` (a `.strings` file), else JSON; anything else YAML;
    /// - `.csv` and `.opml` are CSV and OPML; without an extension, XML whose first 1 KB opens an
    ///   `<opml` element is OPML (CSV is never guessed from content).
    ///
    /// ```swift
    /// DocumentFormat.detect(Array("bplist00…".utf8), fileExtension: "plist")   // .plistBinary
    /// DocumentFormat.detect(Array("{\"a\" = \"b\";}".utf8), fileExtension: "json")   // .json
    /// ```
    /// - Complexity: O(1) for almost all inputs: it looks only at the first tokens.
    public static func detect(_ bytes: [UInt8], fileExtension: String?) -> DocumentFormat {
        bytes.withUnsafeBufferPointer { detect($0, fileExtension: fileExtension) }
    }

    /// The format of a document in `bytes`; see the `[UInt8]` overload.
    public static func detect(_ bytes: UnsafeBufferPointer<UInt8>, fileExtension: String?) -> DocumentFormat {
        let byExtension = fileExtension.flatMap(DocumentFormat.init(fileExtension:))
        if byExtension == .json || byExtension == .yaml || byExtension == .csv || byExtension == .opml, let byExtension { return byExtension }
        if bytes.starts(with: "bplist".utf8) { return .plistBinary }
        var scan = Scanner(bytes)
        scan.skipBOM()
        scan.skipWhitespace()
        if scan.startsWith("<opml") || (scan.startsWith("<?xml") && scan.mentionsOPML) { return .opml }
        if scan.startsWith("<?xml") || scan.startsWith("<!DOCTYPE plist") || scan.startsWith("<plist") || scan.startsWith("<!--") {
            return .plistXML
        }
        if scan.utf16Order != nil { return .plistXML }
        if let byExtension {
            // A property-list extension: the text encoding is the extension's own.
            if byExtension == .plistXML { return scan.peek() == nil ? .plistXML : .plistOpenStep }
            return byExtension
        }
        guard let first = scan.peek() else { return .json }
        switch first {
        case UInt8(ascii: "["): return .json
        case UInt8(ascii: "("), UInt8(ascii: "<"): return .plistOpenStep
        case UInt8(ascii: "/") where scan.peek(1) == UInt8(ascii: "/") || scan.peek(1) == UInt8(ascii: "*"):
            return .plistOpenStep
        case UInt8(ascii: "{"):
            scan.advance()
            scan.skipWhitespace()
            guard let next = scan.peek() else { return .json }
            if next == UInt8(ascii: "}") { return .json }
            if next == UInt8(ascii: "\"") {
                scan.skipQuoted()
                scan.skipWhitespace()
                return scan.peek() == UInt8(ascii: "=") || scan.peek() == UInt8(ascii: ";") ? .plistOpenStep : .json
            }
            if next == UInt8(ascii: "/") || Scanner.isOpenStepWordByte(next) { return .plistOpenStep }
            return .json
        case UInt8(ascii: "\""):
            scan.skipQuoted()
            scan.skipWhitespace()
            if scan.peek() == UInt8(ascii: "=") || scan.peek() == UInt8(ascii: ";") { return .plistOpenStep }
            return .json
        default:
            return .yaml
        }
    }
}

/// A forward cursor over the first bytes of a document, for format detection.
private struct Scanner {
    let bytes: UnsafeBufferPointer<UInt8>
    var i = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    /// `true` for big-endian, `false` for little-endian UTF-16 by byte-order mark.
    var utf16Order: Bool? {
        guard bytes.count >= 2 else { return nil }
        if bytes[0] == 0xFE && bytes[1] == 0xFF { return true }
        if bytes[0] == 0xFF && bytes[1] == 0xFE { return false }
        return nil
    }

    /// Whether the first kilobyte from the cursor holds `<opml`.
    var mentionsOPML: Bool {
        let window = UnsafeBufferPointer(rebasing: bytes[i ..< min(bytes.count, i + 1024)])
        let needle = Array("<opml".utf8)
        guard window.count >= needle.count else { return false }
        for k in 0 ... window.count - needle.count where window[k] == needle[0] {
            if (1 ..< needle.count).allSatisfy({ window[k + $0] == needle[$0] }) { return true }
        }
        return false
    }

    func peek(_ ahead: Int = 0) -> UInt8? { i + ahead < bytes.count ? bytes[i + ahead] : nil }
    mutating func advance() { i += 1 }

    mutating func skipBOM() {
        if bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF { i = 3 }
    }

    mutating func skipWhitespace() {
        while let c = peek(), c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 { i += 1 }
    }

    func startsWith(_ literal: String) -> Bool {
        var k = i
        for c in literal.utf8 {
            guard k < bytes.count, bytes[k] == c else { return false }
            k += 1
        }
        return true
    }

    /// Skips a double-quoted string (with backslash escapes) starting at the cursor.
    mutating func skipQuoted() {
        i += 1
        while let c = peek() {
            i += 1
            if c == UInt8(ascii: "\\") { i += 1 } else if c == UInt8(ascii: "\"") { return }
        }
    }

    /// Bytes of an unquoted OpenStep string.
    static func isOpenStepWordByte(_ c: UInt8) -> Bool {
        switch c {
        case UInt8(ascii: "a") ... UInt8(ascii: "z"), UInt8(ascii: "A") ... UInt8(ascii: "Z"), UInt8(ascii: "0") ... UInt8(ascii: "9"):
            true
        case UInt8(ascii: "_"), UInt8(ascii: "$"), UInt8(ascii: "+"), UInt8(ascii: "/"), UInt8(ascii: ":"), UInt8(ascii: "."), UInt8(ascii: "-"):
            true
        default:
            false
        }
    }
}
