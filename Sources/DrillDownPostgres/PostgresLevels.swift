import DrillDownCore
import DrillDownStore
import Foundation
import GRDB
import NIOConcurrencyHelpers
import PostgresNIO

/// Existing PostgreSQL tables shown and edited through a schema's `levels:` mapping (such as `Examples/Music/music.schema.yaml`),
/// by several `drilldown serve` instances at once: the same ``DrillDownStore/RelationalSource``
/// (levels read a page at a time by keyset) and ``DrillDownStore/RelationalStore`` (each change
/// as row writes, undo checked against other writers) as SQLite's, on PostgreSQL.
///
/// Other writers are followed through a revision per mapped table: an editable instance installs,
/// once, a table `drilldown_revisions` and on each mapped table a statement trigger that raises
/// the table's revision and sends `NOTIFY drilldown_levels` — so a change made by another
/// instance, or by any other program (`psql`), reaches every instance's pages. Each step locks
/// the mapped tables' revision rows first (writers go one after another, and a step that finds
/// a revision it has not seen works on the data as it is now), and its own triggers announce it.
/// With a history (`serve --editable`), each step also writes its record into `drilldown_history`
/// in its transaction, which every instance reads (``PostgresHistoryLog/init(levels:)``).
///
/// ```swift
/// let levels = try PostgresLevels(location, mapping: mapping, editable: true)
/// var store = try levels.store()
/// try store.apply([.updateTitle([0], title: "Miles Dewey Davis")])   // one transaction, NOTIFY at commit
/// ```
public struct PostgresLevels: Sendable {
    /// The database (its `table` parameter is not used: the mapping names the tables).
    public let location: PostgresLocation
    /// The mapping, as given.
    public let mapping: RelationalMapping
    let database: PostgresRelationalDatabase

    /// The channel every instance's triggers notify.
    public static let channel = "drilldown_levels"

    /// Connects and checks `mapping` against the database's tables; with `editable`, installs the
    /// revision triggers on the mapped tables (idempotent); with `listen`, follows NOTIFY.
    /// - Throws: ``PostgresStoreError`` when the server cannot be reached or refuses,
    ///   ``DrillDownStore/MappingError`` when the mapping names a table or column that is not there.
    public init(_ location: PostgresLocation, mapping: RelationalMapping, editable: Bool, listen: Bool = false) throws {
        var location = location
        location.table = ""   // the mapping names the tables; messages name the database
        self.location = location
        self.mapping = mapping
        let reads = try PostgresSession(location, connections: PostgresSession.readConnections)
        let writes = try PostgresSession(location)
        let tables = try reads.run { connection in
            let db = PostgresRelationalConnection(connection, of: reads)
            let relations = try db.relations()
            // The mapped tables as the database spells them (views are never written).
            return mapping.levels.compactMap { level in
                relations.first { !$0.isView && $0.name.caseInsensitiveCompare(level.table) == .orderedSame }?.name
            }
        }
        database = PostgresRelationalDatabase(
            location: location, reads: reads, writes: writes, tables: Array(Set(tables)).sorted(),
            listener: listen ? try PostgresListener(location, channel: Self.channel) : nil)
        if editable {
            do { try database.install() } catch {
                guard !error.unavailable else { throw error }
                throw PostgresStoreError(
                    location,
                    "cannot install the revision triggers an editable instance needs to follow other writers (\(error.message)); "
                        + "open it for editing once as the tables' owner, or serve it without --editable")
            }
        }
    }

    /// The data as it is now: nothing read until shown.
    public func source(rootTitle: String? = nil) throws -> RelationalSource {
        try RelationalSource(relational: database, mapping: mapping, file: location.description, rootTitle: rootTitle ?? location.database)
    }

    /// An editing store (also the live model of a read-only instance, which never writes).
    public func store(rootTitle: String? = nil) throws -> RelationalStore {
        try RelationalStore(database: database, mapping: mapping, file: location.description, rootTitle: rootTitle ?? location.database)
    }

    /// Whether the database answers (for `/readyz`): `nil`, or why not.
    public func ping() -> String? { database.reads.ping() }
}
