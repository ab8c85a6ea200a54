import DrillDownCore
import DrillDownStore

/// An ``EditingStore`` over a tree table in PostgreSQL that several `drilldown serve` instances
/// share. It is the SQLite tree table's store on another database (the same
/// ``DrillDownStore/TreeTableStore`` over a ``PostgresTreeDatabase``): the snapshot is a lazy
/// ``DrillDownStore/TreeTableSource`` (the root row when opened, then a page of 100 rows per
/// level shown), and each change is carried out by the same ``DrillDownStore/TreeTableEditor``,
/// writing only the rows it touches (``PostgresRowWriter``).
///
/// Each step is one transaction that first increments the table's revision (`UPDATE … RETURNING`,
/// which holds the revision row until the commit, so writers of the table go one after another),
/// then resolves the change's paths in the table as it is now (a snapshot older than the
/// revision is renewed, and a path that now leads to another row, or a row changed since it was
/// shown, is a ``EditError/Reason/conflict`` that changes nothing), writes its rows and ends with
/// `NOTIFY drilldown_<table>, '<revision>'`, delivered at the commit. An unreachable server is
/// ``EditError/Reason/unavailable``.
///
/// Undo and redo replay the step's recorded row operations inverted or again, refusing (as a
/// conflict) when another instance changed those rows since. Other instances' commits are
/// noticed by ``refresh()``, from the ``PostgresListener`` or a poll every 2 s: the snapshot is
/// renewed (an empty cache, nothing read until shown).
///
/// A step with a ``stepKey`` (the web API's `Idempotency-Key`) records the key and its paths in
/// `<table>_keys` in the same transaction; a step whose key is there already (looked up after
/// the revision row is taken, so a step with the same key on another instance has committed or
/// rolled back by then) changes nothing and reports the recorded outcome as ``replayed``. Keys
/// are kept for a day.
///
/// ```swift
/// let location = try PostgresLocation(url: "postgres://dd@127.0.0.1:55432/db?table=music")
/// var store = try PostgresTreeStore(location)
/// try store.apply([.setAttribute([0], key: "plays", value: Scalar(.integer, "6"))])   // one transaction, one NOTIFY
/// if try store.refresh() { show(store.snapshot) }                                        // another instance wrote
/// ```
public typealias PostgresTreeStore = TreeTableStore<PostgresTreeDatabase>

extension TreeTableStore where Database == PostgresTreeDatabase {
    /// Opens the table for editing (with `upgrading`, upgrading a table written by an older
    /// version once); with `listen`, follows other instances' changes through NOTIFY.
    public init(
        _ location: PostgresLocation, mode: ReadingMode? = nil, keys: OutlineKeys = .standard, name: String? = nil,
        schema: Schema = Schema(), listen: Bool = true, upgrading: Bool = true
    ) throws(PostgresStoreError) {
        let table = try PostgresTreeTable(location)
        if upgrading { try table.upgrade() }
        let source = try table.source(mode: mode, keys: keys, name: name)
        let listener = listen ? try PostgresListener(location) : nil
        try table.prepareKeys()
        if upgrading { try table.prepareHistory() }
        self.init(database: PostgresTreeDatabase(table: table, listener: listener), source: source, schema: schema)
    }

    /// The table edited.
    public var table: PostgresTreeTable { database.table }

    /// The revision the snapshot shows.
    public var revision: Int64 { source.version }

    /// How often ``refresh()`` asks the database even when no notification came.
    public var pollInterval: Duration {
        get { database.pollInterval }
        set { database.pollInterval = newValue }
    }
}

extension PostgresTreeStore {
    /// `true` once this store's listener has its LISTEN in place (at once when it has), so a
    /// change made elsewhere from then on is announced to it; `false` without a listener or when
    /// `timeout` passes first.
    public func waitUntilListening(timeout: Duration = .seconds(30)) async -> Bool {
        guard let listener = database.listener else { return false }
        return await listener.waitUntilListening(timeout: timeout)
    }
}
