// Cases+CallerLogger: a caller's logger (a request's) receives the statement lines of its calls, with its metadata.
import Logging
import Strata

extension ConformanceSuite {
    static let callerLoggerCases: [ConformanceCase] = [
        ConformanceCase("log.caller-logger-carries-its-metadata-on-every-path") { db in
            try await Fixtures.migrate(db)
            let own = CapturedLogs()
            let logged = try await observed(db) {
                $0.logger = own.logger(level: .debug)
                // Outcomes, not waits: a whole test run on 2 cores can hold a queued call back for long.
                $0.poolTimeout = max($0.poolTimeout, 180)
            }
            defer { logged.close() }
            let request = CapturedLogs()
            var caller = request.logger(level: .debug)
            caller[metadataKey: "request.id"] = "r-1"
            let id = try await Database.withLogger(caller) {
                var user = ConfUser(name: "Ann", email: "ann@x.io")
                try await user.save(on: logged)  // a write in its own transaction
                _ = try await ConfUser.query(on: logged).where(\.name == "Ann").all()  // a query
                _ = try await ConfUser.find(user.id ?? 0, on: logged)  // a read by key
                try await logged.transaction { tx in _ = try ConfUser.query(on: tx).count() }
                _ = try logged.readSync { tx in try ConfUser.query(on: tx).count() }  // the blocking entry
                // Child tasks inherit the logger, also when their reads run beside each other.
                let saved = user.id ?? 0
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for _ in 0..<4 { group.addTask { _ = try await ConfUser.find(saved, on: logged) } }
                    try await group.waitForAll()
                }
                return user.id
            }
            let lines = request.records.filter { $0.message == "statement" }
            let operations = Set(lines.compactMap { $0.metadata["db.operation"] })
            try check(operations.isSuperset(of: ["insert", "select"]), "the caller saw its statements: \(operations)")
            try check(lines.count >= 9, "one line per statement (\(lines.count))")
            try check(lines.allSatisfy { $0.metadata["request.id"] == "r-1" }, "each carries the caller's metadata")
            try check(lines.allSatisfy { $0.metadata["db.system"] == db.driverName }, "…and names the driver")
            try check(
                !own.records.contains { $0.message == "statement" },
                "the database's own logger got none of them")

            _ = try await ConfUser.find(id ?? 0, on: logged)
            try checkEqual(
                own.records.filter { $0.message == "statement" }.count, 1, "outside the scope: the database's logger")
            try check(
                !request.records.contains { $0.metadata["request.id"] == nil }, "nothing else reached the caller's")
        },
        ConformanceCase("log.concurrent-callers-each-get-their-own-lines") { db in
            try await Fixtures.migrate(db)
            let logged = try await Siblings.open(db, connections: 3)
            defer { logged.close() }
            let logs = CapturedLogs()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for n in 0..<3 {
                    var caller = logs.logger(level: .debug)
                    caller[metadataKey: "request.id"] = .string("r-\(n)")
                    group.addTask { [caller] in
                        try await Database.withLogger(caller) {
                            var row = ConfGroup(title: "g\(n)")
                            try await row.save(on: logged)
                            _ = try await ConfGroup.query(on: logged).where(\.title == "g\(n)").all()
                        }
                    }
                }
                try await group.waitForAll()
            }
            for n in 0..<3 {
                let mine = logs.records.filter { $0.metadata["request.id"] == "r-\(n)" }
                try check(mine.count >= 2, "r-\(n) logged its insert and select (\(mine.count))")
                let selects = mine.filter { $0.metadata["db.operation"] == "select" }
                // Only the statement's shape is logged (values are bound), so the rows it returned tell them apart.
                try check(selects.allSatisfy { $0.metadata["db.rows_returned"] == "1" }, "r-\(n)'s own select")
            }
            try check(logs.records.allSatisfy { $0.metadata["request.id"] != nil }, "no line without a request")
        },
        ConformanceCase("log.caller-logger-level-decides-and-slow-statements-reach-it") { db in
            try await Fixtures.migrate(db)
            let own = CapturedLogs()
            let logged = try await observed(db) {
                $0.logger = own.logger(level: .debug)
                $0.slowStatementThreshold = 0
            }
            defer { logged.close() }
            let request = CapturedLogs()
            var caller = request.logger(level: .warning)
            caller[metadataKey: "request.id"] = "r-slow"
            try await Database.withLogger(caller) { _ = try await ConfUser.query(on: logged).count() }
            try checkEqual(
                request.records.map(\.message), ["slow statement"], "at .warning: the slow statement only")
            try checkEqual(request.records.first?.metadata["request.id"], "r-slow", "with the caller's metadata")
            try check(
                !own.records.contains { $0.message.contains("statement") }, "and no statement on the database's logger")
        },
    ]
}
