// Cases+RowLocks: isolation levels (granted at least as strong as asked), retries, and FOR UPDATE / FOR SHARE.
import Strata
import Synchronization

extension ConformanceSuite {
    /// The level each driver grants for a request: PostgreSQL and MariaDB the level asked for, SQLite and the memory
    /// driver serializable (they run one transaction at a time).
    static func expectedIsolation(_ asked: IsolationLevel, driver: String) -> IsolationLevel {
        driver == "postgres" || driver == "mariadb" ? asked : .serializable
    }

    static let rowLockCases: [ConformanceCase] = [
        ConformanceCase("transaction.isolation.granted-at-least-as-strong") { db in
            try await Fixtures.migrate(db)
            for level in IsolationLevel.allCases {
                let (granted, inSavepoint) = try await db.transaction(isolation: level) { tx in
                    var g = ConfGroup(title: "\(level)")
                    try g.save(tx)
                    let nested = try tx.savepoint { sp in sp.isolation }
                    return (tx.isolation, nested)
                }
                try check(
                    granted.map { $0 >= level } ?? false, "\(level) is granted at \(granted.map { "\($0)" } ?? "nil")")
                try checkEqual(
                    granted, expectedIsolation(level, driver: db.driverName), "the level granted for \(level)")
                try checkEqual(inSavepoint, granted, "a savepoint keeps the transaction's level")
            }
            let plain = try await db.transaction { tx in tx.isolation }
            try checkEqual(plain, nil, "a transaction without a level reports none (the driver's default)")
            try checkEqual(
                try await ConfGroup.query(on: db).order(\.title).all().map(\.title),
                IsolationLevel.allCases.map(\.description).sorted(), "each isolated transaction committed")
        },
        ConformanceCase("transaction.isolation.retry-reruns-the-body-from-scratch") { db in
            try await Fixtures.migrate(db)
            let attempts = Atomic<Int>(0)
            let title = try await db.transaction(
                isolation: .serializable, retry: .attempts(5, backoff: .milliseconds(1))
            ) { tx in
                let n = attempts.add(1, ordering: .relaxed).newValue
                var g = ConfGroup(title: "attempt \(n)")
                try g.save(tx)
                if n == 1 { throw StrataError.serializationFailure }  // lost a race: rolled back, run again
                if n == 2 { throw StrataError.busy }
                return g.title
            }
            try checkEqual(attempts.load(ordering: .relaxed), 3, "two failed attempts, then one that commits")
            try checkEqual(title, "attempt 3", "the last attempt's result")
            try checkEqual(
                try await ConfGroup.query(on: db).all().map(\.title), ["attempt 3"],
                "the failed attempts wrote nothing")
        },
        ConformanceCase("transaction.isolation.retry-rethrows-the-last-error-unchanged") { db in
            try await Fixtures.migrate(db)
            let attempts = Atomic<Int>(0)
            try await checkThrows("a race lost on every attempt", { $0 == .serializationFailure }) {
                try await db.transaction(retry: .attempts(3, backoff: .milliseconds(1))) { tx in
                    attempts.add(1, ordering: .relaxed)
                    var g = ConfGroup(title: "doomed")
                    try g.save(tx)
                    throw StrataError.serializationFailure
                }
            }
            try checkEqual(attempts.load(ordering: .relaxed), 3, "exactly maxAttempts runs")
            attempts.store(0, ordering: .relaxed)
            try await checkThrows("an error not worth retrying", { $0 == .lockNotAvailable(table: "conf_group") }) {
                try await db.transaction(isolation: .readCommitted, retry: .attempts(3)) { tx in
                    attempts.add(1, ordering: .relaxed)
                    var g = ConfGroup(title: "doomed")
                    try g.save(tx)
                    throw StrataError.lockNotAvailable(table: "conf_group")
                }
            }
            try checkEqual(attempts.load(ordering: .relaxed), 1, "a NOWAIT failure is not retried")
            try checkEqual(try await ConfGroup.query(on: db).count(), 0, "nothing was written")
        },
        ConformanceCase("lock.for-update-and-for-share-read-the-same-rows") { db in
            let users = try await Fixtures.seedUsers(db)
            let expected = users.compactMap(\.id)
            let locked = try await db.transaction { tx in
                try [
                    ConfUser.query(on: tx).order(\.id).forUpdate().all(),
                    ConfUser.query(on: tx).order(\.id).forUpdate(.noWait).all(),
                    ConfUser.query(on: tx).order(\.id).forUpdate(.skipLocked).all(),
                    ConfUser.query(on: tx).order(\.id).forShare().all(),
                    ConfUser.query(on: tx).order(\.id).forShare(.skipLocked).all(),
                ].map { $0.compactMap(\.id) }
            }
            for (n, ids) in locked.enumerated() { try checkEqual(ids, expected, "locking query \(n) reads every row") }
            let first = try await db.transaction { tx in
                try ConfUser.query(on: tx).where(\.active == true).order(\.id).limit(1).forUpdate(.skipLocked).first()
            }
            try checkEqual(first?.id, users.first(where: \.active)?.id, "a filtered, limited lock reads the first row")
        },
        ConformanceCase("lock.on-a-join-locks-the-main-table") { db in
            _ = try await seedJoinWorld(db)
            let names = try await db.transaction { tx in
                try ConfMember.query(on: tx).join(ConfMember.team).order(\.name).forUpdate().all().map(\.name)
            }
            try checkEqual(names, ["Ann", "Bob", "Cid"], "an inner join locks and reads its rows")
            try await db.transaction { tx in
                try checkThrowsSync(
                    "a lock on the nullable side of a RIGHT join",
                    {
                        if case .invalidQuery = $0 { return true } else { return false }
                    }
                ) { try ConfMember.query(on: tx).join(ConfMember.team, .right).forUpdate().all() }
            }
        },
        ConformanceCase("lock.outside-a-transaction-is-misuse") { db in
            let users = try await Fixtures.seedUsers(db)
            try await checkThrows(
                "FOR UPDATE in autocommit",
                {
                    if case .transactionMisuse(let why) = $0 { return why.contains("conf_user") } else { return false }
                }
            ) { try await ConfUser.query(on: db).forUpdate(.skipLocked).all() }
            try await checkThrows(
                "FOR SHARE in autocommit",
                {
                    if case .transactionMisuse = $0 { return true } else { return false }
                }
            ) { try await ConfUser.query(on: db).where(\.active == true).forShare().first() }
            try checkEqual(try await ConfUser.query(on: db).count(), users.count, "nothing changed")
        },
        ConformanceCase("lock.with-count-or-distinct-is-invalid-and-keeps-the-transaction") { db in
            let users = try await Fixtures.seedUsers(db)
            try await db.transaction { tx in
                var g = ConfGroup(title: "before")
                try g.save(tx)
                try checkThrowsSync(
                    "a locked count",
                    {
                        if case .invalidQuery(let why) = $0 { return why.contains("conf_user") } else { return false }
                    }
                ) { try ConfUser.query(on: tx).forUpdate().count() }
                try checkThrowsSync(
                    "a locked DISTINCT",
                    {
                        if case .invalidQuery = $0 { return true } else { return false }
                    }
                ) { try ConfUser.query(on: tx).distinct().forShare().all() }
                var h = ConfGroup(title: "after")
                try h.save(tx)
            }
            try checkEqual(try await ConfGroup.query(on: db).count(), 2, "the transaction went on and committed")
            try checkEqual(try await ConfUser.query(on: db).count(), users.count, "no user changed")
        },
        ConformanceCase("lock.rolls-back-with-its-transaction") { db in
            let users = try await Fixtures.seedUsers(db)
            struct Boom: Error {}
            do {
                try await db.transaction { tx in
                    for var u in try ConfUser.query(on: tx).order(\.id).forUpdate().all() {
                        u.name = "taken"
                        try u.save(tx)
                    }
                    throw Boom()
                }
            } catch is Boom {}
            try checkEqual(
                try await ConfUser.query(on: db).where(\.name == "taken").count(), 0,
                "the locked rows' writes are undone")
            let taken = try await db.transaction(isolation: .repeatableRead) { tx in
                let held = try ConfUser.query(on: tx).forUpdate(.noWait).all()
                return try held.count == ConfUser.query(on: tx).set(\.name, to: "taken").update() ? held.count : -1
            }
            try checkEqual(taken, users.count, "after the rollback the rows can be locked and written again")
        },
    ]
}
