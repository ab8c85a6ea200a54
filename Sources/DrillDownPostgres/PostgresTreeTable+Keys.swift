import DrillDownCore
import Logging
import PostgresNIO

/// The idempotency keys of a tree table's steps (`<table>_keys`): each keyed step's key, what it
/// was asked to do and the paths it affected, written in the step's own transaction, so a retry
/// through any instance finds it (see ``PostgresTreeStore``).
extension PostgresTreeTable {
    /// Creates `<table>_keys` when missing and forgets keys older than a day.
    func prepareKeys() throws(PostgresStoreError) {
        let table = location.table
        let logger = session.logger
        try session.run { connection in
            try connection.execute(PostgresQuery(unsafeSQL: """
                CREATE TABLE IF NOT EXISTS \(table)_keys (
                    key text PRIMARY KEY, request text NOT NULL, paths text NOT NULL, at timestamptz NOT NULL DEFAULT now())
                """), logger)
            try connection.execute(PostgresQuery(unsafeSQL: "DELETE FROM \(table)_keys WHERE at < now() - interval '1 day'"), logger)
        }
    }

    /// The outcome recorded under `key`, read inside the caller's transaction.
    func recordedStep(_ key: String, _ connection: PostgresConnection) throws -> StepOutcome? {
        let rows = try connection.rows("SELECT request, paths FROM \(unescaped: location.table)_keys WHERE key = \(key)", session.logger)
        guard let row = rows.first else { return nil }
        let (request, paths) = try row.decode((String, String).self)
        return StepOutcome(request: request, paths: StepOutcome.paths(paths))
    }

    /// Records `key` with `paths` inside the caller's transaction.
    func record(_ key: StepKey, paths: [TreePath], _ connection: PostgresConnection) throws {
        try connection.execute(
            "INSERT INTO \(unescaped: location.table)_keys(key, request, paths) VALUES (\(key.key), \(key.request), \(StepOutcome.text(paths)))",
            session.logger)
    }
}
