import DrillDownCore
import DrillDownPostgres
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Every database call has a deadline: a server that accepts connections and then never answers
/// (a hung or half-dead PostgreSQL) costs a call its ``PostgresLocation/timeout``, not the caller's
/// thread for good. Needs no PostgreSQL: the "server" is a listening socket nobody reads.
@Suite struct PostgresDeadlineTests {
    /// A loopback port whose connections complete (the kernel's backlog) and are never answered.
    final class SilentServer {
        let fd: Int32
        let port: Int

        init() throws {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            self.fd = fd
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = 0
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0, listen(fd, 64) == 0 else {
                port = 0
                throw POSIXError(.EADDRINUSE)
            }
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
            }
            port = Int(UInt16(bigEndian: address.sin_port))
        }

        deinit { close(fd) }
    }

    @Test("opening a table on a server that never answers fails within the timeout, as unavailable")
    func silentServerTimesOut() throws {
        let server = try SilentServer()
        var location = try PostgresLocation(url: "postgres://dd@127.0.0.1:\(server.port)/db?sslmode=disable&table=t")
        location.timeout = .milliseconds(500)
        let started = ContinuousClock.now
        #expect {
            _ = try PostgresTreeStore(location, listen: false)
        } throws: { error in
            (error as? PostgresStoreError)?.unavailable == true
        }
        let took = ContinuousClock.now - started
        #expect(took < .seconds(3), "took \(took)")
    }

    @Test("concurrent callers on a silent server all get their answer within the timeout")
    func callersDoNotQueueForever() throws {
        let server = try SilentServer()
        var location = try PostgresLocation(url: "postgres://dd@127.0.0.1:\(server.port)/db?sslmode=disable&table=t")
        location.timeout = .milliseconds(400)
        let table = try PostgresTreeTable(location)
        // One connection for the table's session: the other callers wait for it, each within its
        // own deadline. A thread each, timed inside the thread (other tests may keep Swift's
        // cooperative threads busy meanwhile).
        let results = Results()
        let done = DispatchGroup()
        for _ in 0 ..< 6 {
            done.enter()
            Thread.detachNewThread {
                let started = ContinuousClock.now
                let failed = (try? table.revision()) == nil
                results.add(failed, ContinuousClock.now - started)
                done.leave()
            }
        }
        #expect(done.wait(timeout: .now() + 30) == .success)
        #expect(results.all.count == 6)
        for (failed, took) in results.all {
            #expect(failed)
            #expect(took < .seconds(2), "a caller took \(took)")
        }
    }

    final class Results: @unchecked Sendable {
        private let lock = NSLock()
        private var items: [(Bool, Duration)] = []
        func add(_ failed: Bool, _ took: Duration) { lock.withLock { items.append((failed, took)) } }
        var all: [(Bool, Duration)] { lock.withLock { items } }
    }
}
