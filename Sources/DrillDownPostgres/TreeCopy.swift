import DrillDownCore
import Dispatch
import Logging
import NIOCore
import PostgresNIO

/// Streams a whole tree into a new tree table with `COPY … FROM STDIN` (text format): breadth
/// first, ids 0, 1, 2, … (a node's id is known before its children's), in buffers of about 1 MiB.
/// A `COPY` is parsed and written by the server in one pass, without a statement per batch.
enum TreeCopy {
    /// Bytes gathered before a buffer is sent.
    static let bufferSize = 1 << 20

    /// Copies `tree` into `table` (empty, with the tree table's columns) on `connection`, inside
    /// the caller's transaction; returns one past the greatest id used (the id sequence's start).
    /// Blocks the calling thread (never an event loop's) until the server has every row.
    /// `progress` is told the rows sent so far after each buffer.
    static func copy(
        _ tree: TreeStore, into table: String, positionGap: Int64, _ connection: PostgresConnection, _ logger: Logger,
        progress: (@Sendable (Int) -> Void)? = nil
    ) throws -> Int64 {
        let promise = connection.eventLoop.makePromise(of: Int64.self)
        // The copy runs on a queue of its own, not on Swift's cooperative pool: the caller blocks
        // (it may hold a cooperative thread itself), so the pool may have no thread to give.
        Task(executorPreference: CopyExecutor.shared) {
            do { promise.succeed(try await stream()) } catch { promise.fail(error) }
        }
        @Sendable func stream() async throws -> Int64 {
            var next: Int64 = 1
            try await connection.copyFrom(table: table, columns: ["id", "parent", "position", "kind", "key", "value", "nchildren"], logger: logger) { writer in
                var buffer = ByteBuffer()
                buffer.reserveCapacity(bufferSize + 4096)
                var queue: [(node: NodeID, id: Int64, parent: Int64, position: Int64, keyed: Bool)] = [(tree.root, 0, -1, 0, false)]
                var head = 0
                while head < queue.count {
                    let item = queue[head]
                    head += 1
                    let kind = tree.kind(of: item.node)
                    TreeCopy.append(item.id, to: &buffer)
                    buffer.writeInteger(UInt8(ascii: "\t"))
                    if item.parent < 0 { buffer.writeStaticString("\\N") } else { TreeCopy.append(item.parent, to: &buffer) }
                    buffer.writeInteger(UInt8(ascii: "\t"))
                    TreeCopy.append(item.position, to: &buffer)
                    buffer.writeInteger(UInt8(ascii: "\t"))
                    TreeCopy.append(Int64(kind.rawValue), to: &buffer)
                    buffer.writeInteger(UInt8(ascii: "\t"))
                    if item.keyed { TreeCopy.escape(tree.keyBytes(of: item.node), into: &buffer) } else { buffer.writeStaticString("\\N") }
                    buffer.writeInteger(UInt8(ascii: "\t"))
                    if kind.isContainer { buffer.writeStaticString("\\N") } else { TreeCopy.escape(tree.valueBytes(of: item.node), into: &buffer) }
                    buffer.writeInteger(UInt8(ascii: "\t"))
                    TreeCopy.append(kind.isContainer ? Int64(tree.childCount(of: item.node)) : 0, to: &buffer)
                    buffer.writeInteger(UInt8(ascii: "\n"))
                    if kind.isContainer {
                        for (i, child) in tree.children(of: item.node).enumerated() {
                            queue.append((child, next, item.id, Int64(i) * positionGap, kind == .object))
                            next += 1
                        }
                    }
                    if head > 65_536 {
                        queue.removeFirst(head)
                        head = 0
                    }
                    if buffer.readableBytes >= bufferSize {
                        try await writer.write(buffer)
                        buffer.clear()
                        progress?(Int(next) - (queue.count - head))  // ids given out, less those still queued
                    }
                }
                if buffer.readableBytes > 0 { try await writer.write(buffer) }
                progress?(Int(next))
            }
            return next
        }
        return try promise.futureResult.wait()
    }

    /// `value` in decimal (a small string: no allocation).
    static func append(_ value: Int64, to buffer: inout ByteBuffer) {
        buffer.writeString(String(value))
    }

    /// `bytes` as a text-format COPY field: backslash, tab, newline and carriage return escaped.
    static func escape(_ bytes: some Collection<UInt8>, into buffer: inout ByteBuffer) {
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "\\"): buffer.writeStaticString("\\\\")
            case UInt8(ascii: "\t"): buffer.writeStaticString("\\t")
            case UInt8(ascii: "\n"): buffer.writeStaticString("\\n")
            case UInt8(ascii: "\r"): buffer.writeStaticString("\\r")
            default: buffer.writeInteger(byte)
            }
        }
    }
}

/// A task executor on a Dispatch queue of its own (see ``TreeCopy/copy(_:into:positionGap:_:_:)``).
final class CopyExecutor: TaskExecutor, @unchecked Sendable {
    static let shared = CopyExecutor()
    let queue = DispatchQueue(label: "drilldown.postgres.copy")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
