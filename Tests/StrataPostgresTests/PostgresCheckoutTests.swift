// PostgresCheckoutTests: after a server restart, the pool replaces its dead idle connections at checkout (issue 16).
import Foundation
import Strata
import StrataConformance
import StrataPostgres
import Testing

extension PostgresServerTests {
    @Suite("PostgreSQL pool checkout after a restart")
    struct PostgresCheckoutTests {
        /// `n` calls at once, each holding its connection 100 ms; the backend process id of each, or its error.
        static func parallel(_ db: Database, _ n: Int) async -> [Result<Int64, StrataError>] {
            await withTaskGroup(of: Result<Int64, StrataError>.self) { group in
                for _ in 0..<n {
                    group.addTask {
                        do {
                            let rows = try await db.unsafeRawExecute("SELECT pg_backend_pid() FROM pg_sleep(0.1)")
                            guard case .integer(let pid)? = rows.first?.first else {
                                return .failure(.invalidQuery("no pid"))
                            }
                            return .success(pid)
                        } catch let error as StrataError {
                            return .failure(error)
                        } catch {
                            return .failure(.database(code: -1, message: "untyped: \(error)"))
                        }
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
        }

        /// `n` transactions at once, each holding its connection until all `n` have one or 20 s pass;
        /// the backend process id of each, or its error.
        static func holdAll(_ db: Database, _ n: Int) async -> [Result<Int64, StrataError>] {
            let arrived = NSCondition()
            let count = Count()
            return await withTaskGroup(of: Result<Int64, StrataError>.self) { group in
                for _ in 0..<n {
                    group.addTask {
                        do {
                            // On a thread of its own: a call that meets no other runs its body on the caller's
                            // thread, and this body blocks (up to 20 s) until all `n` hold a connection.
                            let held = Siblings.onOwnThread {
                                try await db.transaction { tx in
                                    let rows = try tx.unsafeRawExecute("SELECT pg_backend_pid()")
                                    guard case .integer(let pid)? = rows.first?.first else {
                                        throw StrataError.invalidQuery("no pid")
                                    }
                                    let deadline = Date().addingTimeInterval(20)
                                    arrived.lock()
                                    count.value += 1
                                    arrived.broadcast()
                                    while count.value < n && arrived.wait(until: deadline) {}
                                    arrived.unlock()
                                    return pid
                                }
                            }
                            return .success(try await held.value)
                        } catch let error as StrataError {
                            return .failure(error)
                        } catch {
                            return .failure(.database(code: -1, message: "untyped: \(error)"))
                        }
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
        }

        /// A counter guarded by the caller's `NSCondition`.
        final class Count: @unchecked Sendable {
            var value = 0
        }

        @Test(
            "16 parallel calls right after a restart all succeed: the 8 idle connections are replaced at checkout",
            .enabled(if: StandbyCluster.enabled, "makes a server of its own: needs initdb and pg_ctl, run as root"),
            .timeLimit(.minutes(3)))
        func restartThenParallelCalls() async throws {
            // A server of its own: stopping the one every other test of the run uses would fail them.
            try await StandbyCluster.with(standby: false, port: StandbyCluster.checkoutPort) { cluster in
                try await Self.restartThenParallelCalls(cluster)
            }
        }

        static func restartThenParallelCalls(_ cluster: StandbyCluster) async throws {
            let db = try Database.open(
                cluster.primaryURL + "?pool=8", drivers: [.postgres], configuration: Configuration(timeout: 2))
            defer { db.close() }
            // Open all 8 connections: each transaction holds its connection until all 8 hold one (at most 20 s),
            // so a busy machine cannot run the calls one after another on a single connection.
            let before = await Self.holdAll(db, 8)
            let pids = Set(before.compactMap { try? $0.get() })
            #expect(pids.count == 8, "all 8 pooled connections opened: \(before)")

            try await cluster.stopPrimary()
            try await cluster.startPrimary()
            let after = await Self.parallel(db, 16)
            let failures = after.compactMap { if case .failure(let e) = $0 { e } else { nil } }
            #expect(failures.isEmpty, "\(failures.count) of 16 calls failed after the restart: \(failures)")
            #expect(Set(after.compactMap { try? $0.get() }).isDisjoint(with: pids), "every connection is new")
        }
    }
}
