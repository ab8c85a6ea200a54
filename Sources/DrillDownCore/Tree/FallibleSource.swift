/// A ``Source`` that reads lazily from storage that can fail (a database server that went away):
/// a read that fails gives an empty result, and the source counts it, so a front end can tell an
/// empty level from one that could not be read and answer accordingly (the web: 503).
///
/// ```swift
/// let before = source.readFailures.count
/// let page = render(source)
/// if source.readFailures.count > before { throw Unavailable(source.readFailures.last) }
/// ```
public protocol FallibleSource: Source {
    /// How many reads failed so far, and why the last one did.
    var readFailures: (count: Int, last: String?) { get }
}
