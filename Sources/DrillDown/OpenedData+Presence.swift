import DrillDownCore
import DrillDownPostgres

extension OpenedData {
    /// What carries presence (who is on which level) between the instances serving this data: for
    /// a PostgreSQL table, `NOTIFY` on its own channel (see `PostgresPresenceRelay`); `nil` for data
    /// one process serves (a document file, an SQLite database), whose presence stays in it.
    public func presenceRelay() throws(OpenError) -> (any PresenceRelay)? {
        switch database {
        case .postgres(let table):
            do { return try PostgresPresenceRelay(table.location) } catch { throw OpenError(file, error.description) }
        case .postgresLevels(let levels):
            do { return try PostgresPresenceRelay(levels.location, dataChannel: PostgresLevels.channel) } catch {
                throw OpenError(file, error.description)
            }
        default:
            return nil
        }
    }
}
