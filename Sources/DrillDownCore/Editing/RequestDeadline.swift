/// The moment by which the request being served must be answered: a front end sets it around
/// the work of one request (the web app: arrival + `--db-timeout`), and a store that waits for a
/// database server gives up on its calls by then, however long the request waited for its turn
/// (behind other writes in the model, or for a free connection). Without one, each call has only
/// its own deadline.
///
/// ```swift
/// try await RequestDeadline.$current.withValue(.now + .seconds(5)) {
///     try await model.apply(.delete([3]))    // a PostgreSQL store's calls end by then
/// }
/// ```
public enum RequestDeadline {
    /// The current request's deadline, if any (a task-local value, so it follows the request's
    /// task into the model's actor).
    @TaskLocal public static var current: ContinuousClock.Instant?
}
