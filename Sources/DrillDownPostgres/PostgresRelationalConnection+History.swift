import DrillDownCore
import DrillDownStore
import PostgresNIO

extension PostgresRelationalConnection {
    /// Creates `drilldown_history` when missing (see ``PostgresHistoryLog``), inside the step's
    /// transaction. Instances whose first steps come together create it one at a time: the
    /// advisory lock is held until the commit, after which the other's `IF NOT EXISTS` sees it.
    func prepareHistory() throws {
        if try value("SELECT to_regclass('\(PostgresHistoryLog.levelsTable)') IS NOT NULL") == 1.databaseValue { return }
        try execute("SELECT pg_advisory_xact_lock(hashtext('\(PostgresHistoryLog.levelsTable)'))", [])
        for statement in PostgresHistoryLog.creating(PostgresHistoryLog.levelsTable, scoped: true) {
            do { try connection.execute(statement, logger) } catch let error as PSQLError { throw failure(error) }
        }
    }

    /// Sends the INSERT of `record` (with the connection's ``scope``) into `drilldown_history`
    /// without waiting for its answer: the
    /// statements that end the step follow it on the connection, and the step waits once for all.
    /// When it fails, the statements after it fail with its error (see ``failure(_:)``), so the
    /// step rolls back. The returned function reads the record's number once a later statement
    /// was answered.
    func sendHistory(_ record: HistoryRecord) throws -> () throws -> Int64 {
        let answer = connection.query(try PostgresHistoryLog.inserting(record, into: PostgresHistoryLog.levelsTable, scope: scope), logger: logger)
        let unanswered = unanswered, location = location
        answer.whenFailure { error in
            var failure = PostgresStoreError(location, error)
            if !failure.unavailable { failure.message = "could not record the change in the history (\(PostgresHistoryLog.levelsTable)): \(failure.message)" }
            unanswered.withLockedValue { $0 = $0 ?? failure }
        }
        return {
            do {
                guard let id = try answer.wait().rows.first?.decode(Int64.self) else { throw PostgresStoreError(location, "the history record got no number") }
                return id
            } catch {
                throw unanswered.withLockedValue { $0 } ?? PostgresStoreError(location, error)
            }
        }
    }
}
