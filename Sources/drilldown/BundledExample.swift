import Foundation

/// The example data shipped inside the tool: the music library that `drilldown serve` shows with no FILE.
enum BundledExample {
    /// The music library's data file.
    static var musicLibrary: URL { Bundle.module.resourceURL!.appendingPathComponent("Bundled/Music/library.yaml") }
    /// The music library's schema.
    static var musicSchema: URL { Bundle.module.resourceURL!.appendingPathComponent("Bundled/Music/schema.yaml") }
}
