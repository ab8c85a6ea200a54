// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "DrillDown",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "DrillDownCore", targets: ["DrillDownCore"]),
        .library(name: "DrillDownFormats", targets: ["DrillDownFormats"]),
        // One entry point for a package that opens data: documents, SQLite, PostgreSQL (`DrillDown.open`).
        .library(name: "DrillDown", targets: ["DrillDown"]),
        .executable(name: "drilldown", targets: ["DrillDownCLI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.1.1"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        // HMAC-SHA256 for the web app's CSRF tokens (already in the graph through HummingbirdTesting).
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3" ..< "5.0.0"),
        // The PostgreSQL store: several servers on one database, live across instances (LISTEN/NOTIFY).
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        // Its event loops, TLS and logging, named directly by the PostgreSQL store.
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        // Named by the web target, which uses them directly (they come with Hummingbird anyway):
        // HTTP field types, NIO's HTTPTypes channel parts, and the service group that runs the server.
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        // Accounts (`serve --users`): its session and bearer authenticators and its bcrypt (HummingbirdBcrypt).
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", from: "2.5.0"),
        // `swift package generate-documentation`: builds the DocC catalogue (Scripts/test.sh docs).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin.git", from: "1.5.0"),
    ],
    targets: [
        // The UI-agnostic model: tree store, paths, navigation, outline, presentation, search.
        .target(
            name: "DrillDownCore",
            path: "Sources/DrillDownCore"
        ),
        // The JSON reader's byte classifier in C (header only): SIMD move-mask, which Swift does not expose.
        .target(name: "CDrillDownSIMD", path: "Sources/CDrillDownSIMD"),
        // Readers and writers of documents: JSON, property lists (XML, binary, OpenStep), YAML.
        // The YAML reader is DrillDown's own (YAML 1.2, every yaml-test-suite case). The patcher
        // drives libyaml's event parser directly for its marks (`import CYaml`, the C library inside
        // Yams; Yams's own API builds a node tree first and hides them). CYaml is not a product of
        // Yams, so it cannot be named here; it is reached through the Yams product, and only
        // Patch/YAMLPatcher.swift uses it (YAMLLocator uses Yams' composer for node positions).
        .target(
            name: "DrillDownFormats",
            dependencies: ["DrillDownCore", "CDrillDownSIMD", .product(name: "Yams", package: "Yams")],
            path: "Sources/DrillDownFormats"
        ),
        // The SQLite store (GRDB): a tree table for any document, relational mappings of existing databases.
        // The bulk import binds through SQLite's C API (`import GRDBSQLite`, GRDB's system library of
        // SQLite, reached through the GRDB product; `SQLite3` on Apple platforms).
        .target(
            name: "DrillDownStore",
            dependencies: ["DrillDownCore", .product(name: "GRDB", package: "GRDB.swift")],
            path: "Sources/DrillDownStore"
        ),
        // The PostgreSQL store (postgres-nio): the tree table in a shared database, NOTIFY between
        // instances; read lazily through the Store's TreeTableSource, the same as an SQLite tree table.
        .target(
            name: "DrillDownPostgres",
            dependencies: [
                "DrillDownCore", "DrillDownStore", .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"), .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"), .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Sources/DrillDownPostgres"
        ),
        // Opening data by path or URL (a document, an SQLite tree table or mapping, a PostgreSQL table),
        // with its editing store and live changes: what every front end and a consumer package call.
        .target(
            name: "DrillDown",
            dependencies: ["DrillDownCore", "DrillDownFormats", "DrillDownStore", "DrillDownPostgres"],
            path: "Sources/DrillDown"
        ),
        // The web front end (Hummingbird 2 + Mustache).
        .target(
            name: "DrillDownWeb",
            dependencies: [
                "DrillDownCore",
                // CSV and OPML downloads (`/export/…`) write through the formats' own writers.
                "DrillDownFormats",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "Yams", package: "Yams"),
            ],
            path: "Sources/DrillDownWeb",
            resources: [.copy("Resources")]
        ),
        // The terminal front end.
        .target(name: "DrillDownTerminal", dependencies: ["DrillDownCore"], path: "Sources/DrillDownTerminal"),
        // The command-line tool that wires sources and front ends together. Its module is not named
        // `drilldown`: that and `DrillDown` would share build folders on a case-insensitive disk.
        .executableTarget(
            name: "DrillDownCLI",
            dependencies: [
                "DrillDown", "DrillDownCore", "DrillDownFormats", "DrillDownStore", "DrillDownPostgres", "DrillDownWeb",
                "DrillDownTerminal", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/drilldown",
            resources: [.copy("Bundled")],
            // Release only: the Swift runtime and Foundation linked in, not loaded at every start (no
            // symbol lookups across a dozen libraries, direct calls): a quarter off a short command.
            // Compiled so too, for the static libraries' link entries; tests and debug builds link dynamically.
            swiftSettings: [.unsafeFlags(["-static-stdlib"], .when(configuration: .release))],
            linkerSettings: [.unsafeFlags(["-static-stdlib"], .when(configuration: .release))]
        ),
        .testTarget(name: "DrillDownCoreTests", dependencies: ["DrillDownCore"]),
        .testTarget(name: "DrillDownFormatsTests", dependencies: ["DrillDownCore", "DrillDownFormats"]),
        // The tree table's property tests run on SQLite and, with a test server, on PostgreSQL.
        .testTarget(name: "DrillDownStoreTests", dependencies: ["DrillDownStore", "DrillDownCore", "DrillDownPostgres", "DrillDownFormats"]),
        .testTarget(name: "DrillDownPostgresTests", dependencies: ["DrillDownPostgres", "DrillDownCore"]),
        .testTarget(name: "DrillDownTests", dependencies: ["DrillDown", "DrillDownFormats"]),
        .testTarget(name: "DrillDownTerminalTests", dependencies: ["DrillDownTerminal", "DrillDownCore"]),
        .testTarget(
            name: "DrillDownWebTests",
            dependencies: [
                "DrillDownWeb", "DrillDownCore", "DrillDownFormats",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ]
        ),
    ]
)
