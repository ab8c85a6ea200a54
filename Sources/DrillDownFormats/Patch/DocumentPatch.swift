import DrillDownCore

/// A document's new text made by changing only the bytes of what changed, so comments,
/// indentation, key order, quoting and untouched lines stay as they were written.
///
/// The old and new trees are compared (``TreeDiff``), and each difference becomes a
/// replacement of the old text's own bytes: JSON and YAML are patched this way. Property lists
/// are written whole, and so is a YAML change that touches a value shared through an anchor or a
/// merge key, or any patch that would not read back as `new` (checked by reading it again).
///
/// ```swift
/// let result = try DocumentPatch.data(text, reads: old, as: new, format: .yaml)
/// // result.patched == false: the document was written whole by DocumentWriter
/// ```
public enum DocumentPatch {
    /// JSON files up to this size are read back after patching to check the patch (larger ones
    /// are trusted to the patcher, whose property tests check it; YAML is always checked).
    public static let checkLimit = 1 << 20

    /// The new text for `text` (which reads as `old`) so that it reads as `new`, and whether it
    /// was patched (`false`: written whole).
    /// - Complexity: O(n) in the size of the text, plus the size of the changed containers.
    public static func data(
        _ text: [UInt8], reads old: TreeStore, as new: TreeStore, format: DocumentFormat
    ) throws(FormatError) -> (bytes: [UInt8], patched: Bool) {
        if let patched = patch(text, old: old, new: new, format: format) { return (patched, true) }
        return (try DocumentWriter.data(new, format: format), false)
    }

    /// The patched text, or `nil` when this format or change cannot be patched.
    static func patch(_ text: [UInt8], old: TreeStore, new: TreeStore, format: DocumentFormat) -> [UInt8]? {
        let edits = TreeDiff.edits(from: old, to: new)
        if edits.isEmpty { return text }
        let replacements: [TextEdit]?
        do throws(WriteFailure) {
            switch format {
            case .json: replacements = try JSONPatcher(text: text, new: new).textEdits(for: edits)
            case .yaml: replacements = try YAMLPatcher(text: text, old: old, new: new)?.textEdits(for: edits) ?? nil
            default: replacements = nil
            }
        } catch {
            return nil
        }
        guard let replacements, let result = TextEdit.apply(replacements, to: text) else { return nil }
        if format == .yaml || result.count <= checkLimit {
            guard let reread = try? DocumentReader.read(bytes: result, file: "patch", format: format).tree,
                reread.isStructurallyEqual(to: new)
            else { return nil }
        }
        return result
    }
}
