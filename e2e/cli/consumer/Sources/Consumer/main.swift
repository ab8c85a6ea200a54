// Opens each data set named on the command line (`PATH[::SCHEMA]`), renames its first row through
// the model the library returns, and prints what the change stream and a fresh open show.
import DrillDown

for argument in CommandLine.arguments.dropFirst() {
    let parts = argument.components(separatedBy: "::")
    let data = try DrillDown.open(parts[0], options: OpenOptions(schemaFile: parts.count > 1 ? parts[1] : nil))
    let label = data.formatName
    let model = try data.model()
    var events = await model.changes().makeAsyncIterator()
    let title = "Renamed by a consumer (\(label))"
    let path = try await model.apply(.updateTitle([0], title: title))
    guard let event = await events.next(), let node = event.source.node(at: path) else {
        print("\(label): no change event")
        continue
    }
    print("\(label): event \(event.origin): \(event.source.title(of: node))")
    let reopened = try DrillDown.open(parts[0], options: OpenOptions(schemaFile: parts.count > 1 ? parts[1] : nil))
    let first = reopened.source.node(at: path).map { reopened.source.title(of: $0) } ?? "none"
    print("\(label): reopened: \(first)")
}
