// WriteRunner: runs write programs on every backend beside the reference, compares after each step, and shrinks
// a failing program to its shortest form.
import Foundation
import Strata
import Synchronization

/// A write program's run on one backend: its database and the models the program holds there.
final class WriteBackend {
    let name: String
    /// The program's database; a ``WriteStep/rotateKey`` replaces it with one over the same driver (the same data)
    /// whose keyring holds one more key.
    private(set) var db: Database
    private var configuration: Configuration
    /// How many keys the program added to the keyring.
    private var rotations = 0
    /// For a private in-memory SQLite database, which lives only as long as its one connection and so cannot be
    /// reopened: the keyring its configuration holds, given its newer keys in place.
    private let inPlace: WPRotatingKeyring?
    /// On PostgreSQL and a SQLite file, a second database over the same data: it holds the write lock
    /// (``WriteStep/busySave(handle:by:)``) and, on PostgreSQL, terminates the program's backend
    /// (``WriteStep/connectionLost(_:)``). Nil where neither can be done for real (an in-memory database).
    let sibling: Database?
    var handles: [WPAccount] = []
    /// Outcomes of nested steps whose enclosing call then threw (a raw transaction's, a retried one's).
    private var pending: [WriteOutcome] = []
    /// The token the program read the history up to, and the token of each transaction it read, in order.
    private var historyRead: HistoryToken?
    private var tokensRead: [HistoryToken] = []

    init(url: String, drivers: [DriverFactory]) throws {
        var configuration = Configuration()
        configuration.maxConnections = 1
        // A short lock wait, for busySave (PostgreSQL: lock_timeout; SQLite: the busy timeout); it also bounds a
        // connect, which loopback does in milliseconds.
        configuration.timeout = 0.5
        let privateMemory = url.hasPrefix("sqlite") && url.contains(":memory:")
        let keyring = try WPNote.keyring()
        let inPlace = privateMemory ? WPRotatingKeyring(keyring) : nil
        self.inPlace = inPlace
        configuration.encryption = inPlace.map { $0 as any ColumnEncryption } ?? keyring
        self.configuration = configuration
        db = try Database.open(url, drivers: drivers, configuration: configuration)
        name = "\(db.driverName) (\(URLText.redacted(url)))"
        let sharedFile = db.driverName == "sqlite" && !url.contains(":memory:")
        var siblingConfiguration = Configuration()
        siblingConfiguration.encryption = configuration.encryption
        sibling =
            db.driverName == "postgres" || sharedFile
            ? try Database.open(url, drivers: drivers, configuration: siblingConfiguration) : nil
    }

    /// Whether `got` differs from `expected` only where SQLite takes the write lock: a save's transaction begins
    /// with `BEGIN IMMEDIATE`, before `willSave` runs, so a save `willSave` would refuse while another connection
    /// holds the lock is `busy` there, and the callback's error on PostgreSQL and memory, which lock at the first
    /// write (SEMANTICS: isolation default).
    func locksBeforeCallbacks(_ step: WriteStep, got: [WriteOutcome], expected: [WriteOutcome]) -> Bool {
        guard case .busySave = step, sibling != nil, db.driverName == "sqlite" else { return false }
        return got == [.busy] && expected == [.callback]
    }

    /// The database reopened over the same driver (the same data) with a keyring of `rotations` added keys, the old
    /// one closed; a private in-memory SQLite database's keyring is given them in place.
    func rekey(rotations: Int) throws {
        self.rotations = rotations
        if let inPlace {
            inPlace.replace(with: try WPNote.keyring(rotations: rotations))
            return
        }
        configuration.encryption = try WPNote.keyring(rotations: rotations)
        let old = db
        db = Database(driver: old.driver, configuration: configuration)
        old.close()
    }

    /// Empty tables for a new program, and a new history.
    func reset() throws {
        if rotations > 0 { try rekey(rotations: 0) }
        handles = []
        historyRead = nil
        tokensRead = []
        try db.writeSync { tx in
            let history = ["strata_history", "strata_history_clock"]
            let tables =
                [WPEntry.schema.name, WPAccount.schema.name, WPNote.schema.name, WPLineMark.schema.name]
                + [WPLine.schema.name] + history
            for table in tables { _ = try tx.execute(.dropTable(table)) }
            try tx.migrate([WPAccount.self, WPEntry.self, WPNote.self, WPLine.self, WPLineMark.self])
        }
    }

    /// Runs one top-level step.
    func run(_ step: WriteStep, skip: (WriteStep) -> Bool) -> [WriteOutcome] {
        pending = []
        do {
            if case .retried(let steps, let failures) = step {
                if skip(step) { return [.skipped] }
                var attempt = 0
                try db.writeSync(retry: RetryPolicy(maxAttempts: 3, backoff: .zero)) { tx in
                    attempt += 1
                    for s in steps { pending += try apply(s, tx, skip: skip) }
                    if attempt <= failures { throw StrataError.serializationFailure }
                }
                return pending
            }
            if case .rotateKey = step {
                if skip(step) { return [.skipped] }
                try rekey(rotations: rotations + 1)
                return [.ok]
            }
            if case .abortingTransaction(let steps, let end) = step {
                if skip(step) { return [.skipped] }
                try db.writeSync(onFailedStatement: .abortTransaction) { tx in
                    for s in steps { pending += try apply(s, tx, skip: skip) }
                    switch end {
                    case .commit, .leaveOpen: break
                    case .rollback: throw Rollback()
                    case .fail: throw Abort()
                    }
                }
                return pending
            }
            let outcomes = try db.readSync { tx in try self.apply(step, tx, skip: skip) }
            return pending + outcomes
        } catch {
            return pending + [Self.outcome(error)]
        }
    }

    private static func outcome(_ error: any Error) -> WriteOutcome {
        switch error {
        case is InjectedFault: return .callback
        case is Abort: return .aborted
        case let e as StrataError:
            switch e {
            case .uniqueViolation: return .unique
            case .staleRecord: return .stale
            case .notPersisted: return .notPersisted
            case .foreignKeyViolation: return .foreignKey
            case .transactionMisuse: return .misuse
            case .serializationFailure: return .serialization
            case .connectionLost: return .connectionLost
            case .busy: return .busy
            case .invalidQuery, .invalidValue: return .invalid
            case .decodingFailed: return .decoding
            default: return .other(e.caseName + ": \(e)")
            }
        case is CancellationError: return .cancelled
        default: return .other("\(error)")
        }
    }

    /// The error a failing generated transaction throws.
    struct Abort: Error {}

    private func apply(_ step: WriteStep, _ tx: Transaction, skip: (WriteStep) -> Bool) throws -> [WriteOutcome] {
        if skip(step) { return [.skipped] }
        func attempt(_ body: () throws -> Void) -> [WriteOutcome] {
            do {
                try body()
                return [.ok]
            } catch {
                return [Self.outcome(error)]
            }
        }
        switch step {
        case .create(let code, let balance):
            var h = WPAccount(code: code, balance: balance)
            let outcome = attempt { try h.save(tx) }
            handles.append(h)
            return outcome
        case .fetch(let code):
            return attempt {
                if let h = try WPAccount.query(on: tx).where(\.code == code).first() { handles.append(h) }
            }
        case .adjust(let i, let by):
            handles[i].balance &+= by
            return attempt { try handles[i].save(tx) }
        case .saveAgain(let i):
            return attempt { try handles[i].save(tx) }
        case .decodedSave(let i, let by):
            return attempt {
                var body = try JSONDecoder().decode(WPAccount.self, from: try JSONEncoder().encode(handles[i]))
                body.balance &+= by
                defer { handles[i] = body }
                try body.save(tx)
            }
        case .delete(let i):
            return attempt { try handles[i].delete(tx) }
        case .forceDelete(let i):
            return attempt { try handles[i].forceDelete(tx) }
        case .entry(let i, let amount) where amount >= WriteStep.narrowEntries:
            return attempt {
                var e = WPEntryNarrow(accountID: handles[i].id ?? -1, amount: Int8(amount))
                let before = (e.id, e.doubled, e.postedAt)
                do {
                    try e.save(tx)
                } catch {
                    // A save that throws leaves the model as it was (the table is compared after the step).
                    if e.id != before.0 || e.doubled != before.1 || e.postedAt != before.2 {
                        throw StrataError.divergence(statement: "WPEntryNarrow.save", details: "the model changed")
                    }
                    throw error
                }
            }
        case .entry(let i, let amount):
            return attempt {
                var e = WPEntry(accountID: handles[i].id ?? -1, amount: amount)
                try e.save(tx)
                if e.doubled != amount &* 2 {  // the generated column, read back after the insert
                    throw StrataError.divergence(statement: "WPEntry.save", details: "doubled read back \(e.doubled)")
                }
                if e.postedAt == nil {  // the database default, filled and read back
                    throw StrataError.divergence(statement: "WPEntry.save", details: "postedAt not read back")
                }
            }
        case .insertAll(let codes, let balance):
            return attempt {
                var batch = codes.map { WPAccount(code: $0, balance: balance) }
                try WPAccount.insertAll(&batch, tx)
                handles += batch
            }
        case .load(let codes, let balance):
            return attempt { try WPAccount.load(codes.map { WPAccount(code: $0, balance: balance) }, tx) }
        case .bulkInsert(let prefix, let count, let duplicate):
            return attempt {
                var bulk = (0..<count).map { WPAccount(code: "\(prefix)\($0)", balance: 0) }
                if let duplicate { bulk.append(WPAccount(code: duplicate, balance: 0)) }
                try WPAccount.insertAll(&bulk, tx)
            }
        case .upsert(let code, let balance):
            var u = WPAccount(code: code, balance: balance)
            let outcome = attempt { try u.upsert(tx, onConflict: \.code) }
            handles.append(u)
            return outcome
        case .upsertAll(let codes, let balance, let keep):
            return attempt {
                var batch = codes.map { WPAccount(code: $0, balance: balance) }
                try WPAccount.upsertAll(&batch, tx, onConflict: [\.code], do: keep ? .nothing : .updateAll)
            }
        case .updateWhere(let atLeast, let value):
            return attempt {
                try WPAccount.query(on: tx).where(\.balance >= atLeast).set(\.balance, to: value).update()
            }
        case .deleteWhere(let below):
            return attempt { try WPAccount.query(on: tx).where(\.balance < below).delete() }
        case .transaction(let steps, let end):
            var outcomes: [WriteOutcome] = []
            do {
                try tx.savepoint { tx in
                    for s in steps { outcomes += try apply(s, tx, skip: skip) }
                    switch end {
                    case .commit, .leaveOpen: break  // a Strata transaction is never left open
                    case .rollback: throw Rollback()
                    case .fail: throw Abort()
                    }
                }
            } catch {
                outcomes.append(Self.outcome(error))
            }
            return outcomes
        case .savepoint(let steps, let rollback):
            var outcomes: [WriteOutcome] = []
            do {
                try tx.savepoint { tx in
                    for s in steps { outcomes += try apply(s, tx, skip: skip) }
                    if rollback { throw Rollback() }
                }
            } catch {
                outcomes.append(Self.outcome(error))
            }
            return outcomes
        case .rawTransaction(let steps, let end):
            // On the call's own handle (top level): what the call does with a transaction left open is part of it.
            try tx.unsafeRawExecute("BEGIN")
            for s in steps { pending += try apply(s, tx, skip: skip) }
            switch end {
            case .commit: try tx.unsafeRawExecute("COMMIT")
            case .rollback: try tx.unsafeRawExecute("ROLLBACK")
            case .fail: throw Abort()
            case .leaveOpen: break
            }
            return []
        case .rawMisuse(let statement):
            return attempt { try tx.unsafeRawExecute(statement) }
        case .retried:
            return [.other("a retried transaction nested in another")]  // generated at the top level only
        case .abortingTransaction:
            return [.other("an aborting transaction nested in another")]  // generated at the top level only
        case .cancelledSave(let i, let by):
            handles[i].balance &+= by
            let (model, error) = cancelledSave(handles[i])
            handles[i] = model
            return [error.map(Self.outcome) ?? .ok]
        case .busySave(let i, let by):
            handles[i].balance &+= by
            guard let holder = sibling else {
                let id = ObjectIdentifier(tx.database)
                WPAccount.simulatedBusy.withLock { _ = $0.insert(id) }
                defer { WPAccount.simulatedBusy.withLock { _ = $0.remove(id) } }
                return attempt { try handles[i].save(tx) }
            }
            return try holder.readSync { h in
                if holder.driverName == "postgres" {
                    try h.unsafeRawExecute("BEGIN")
                    try h.unsafeRawExecute(#"LOCK TABLE "wp_account", "wp_entry" IN EXCLUSIVE MODE"#)
                } else {
                    try h.unsafeRawExecute("BEGIN IMMEDIATE")
                }
                defer { _ = try? h.unsafeRawExecute("ROLLBACK") }
                return attempt { try handles[i].save(tx) }
            }
        case .connectionLost(let steps):
            var outcomes: [WriteOutcome] = []
            do {
                try tx.savepoint { tx in
                    for s in steps { outcomes += try apply(s, tx, skip: skip) }
                    try loseConnection(tx)
                    _ = try WPAccount.query(on: tx).count()
                }
            } catch {
                outcomes.append(Self.outcome(error))
            }
            return outcomes
        default:
            do {
                return try applyNote(step, tx)
            } catch {
                return [Self.outcome(error)]
            }
        }
    }

    /// A step on the note or the history.
    private func applyNote(_ step: WriteStep, _ tx: Transaction) throws -> [WriteOutcome] {
        switch step {
        case .noteSave(let key, let n, let tag, let secret):
            var note = WPNote(id: key, n: n, tag: tag, secret: secret)
            try note.save(tx)
        case .noteUpsert(let key, let n, let tag, let secret, let keep):
            var note = WPNote(id: key, n: n, tag: tag, secret: secret)
            try note.upsert(tx, onConflict: \.id, do: keep ? .nothing : .updateAll)
        case .noteEdit(let key, let by, let retag):
            guard var note = try WPNote.find(key, tx) else { return [.ok] }
            note.n &+= by
            if let retag { note.tag = retag }
            try note.save(tx)
        case .noteDelete(let key):
            _ = try WPNote.find(key, tx)?.delete(tx)
        case .noteInsertAll(let keys, let tag, let load):
            var notes = keys.map { WPNote(id: $0, n: 0, tag: tag, secret: "s-\($0)") }
            if load { try WPNote.load(notes, tx) } else { try WPNote.insertAll(&notes, tx) }
        case .noteUpdateWhere(let tag, let n, let retag):
            let matching = WPNote.query(on: tx).where(\.tag == tag)
            if let retag {
                _ = try matching.set(\.tag, to: retag).update()
            } else {
                _ = try matching.set(\.n, to: n).update()
            }
        case .noteDeleteWhere(let tag):
            _ = try WPNote.query(on: tx).where(\.tag == tag).delete()
        case .lineSave(let order, let sku, let qty):
            var line = WPLine(orderNo: order, sku: sku, qty: qty)
            try line.save(tx)
        case .lineUpsert(let order, let sku, let qty, let keep):
            var line = WPLine(orderNo: order, sku: sku, qty: qty)
            try line.upsert(tx, do: keep ? .nothing : .updateAll)
        case .lineEdit(let order, let sku, let by):
            guard var line = try WPLine.find(WPLine.ID(orderNo: order, sku: sku), tx) else { return [.ok] }
            line.qty &+= by
            try line.save(tx)
        case .lineRekey(let order, let sku, let to):
            guard var line = try WPLine.find(WPLine.ID(orderNo: order, sku: sku), tx) else { return [.ok] }
            line.sku = to
            try line.save(tx)
        case .lineDelete(let order, let sku):
            _ = try WPLine.find(WPLine.ID(orderNo: order, sku: sku), tx)?.delete(tx)
        case .lineMark(let order, let sku):
            var mark = WPLineMark(orderNo: order, sku: sku)
            try mark.save(tx)
        case .lineFindMarked(let marked):
            let lines = WPLine.query(on: tx)
            let found = try (marked ? lines.whereExists(WPLine.marks) : lines.whereNotExists(WPLine.marks)).all()
            return [.found(found.map { "\($0.orderNo)\($0.sku)" }.sorted().joined(separator: ", "))]
        case .lineResetUnmarked(let qty):
            _ = try WPLine.query(on: tx).whereNotExists(WPLine.marks).set(\.qty, to: qty).update()
        case .noteFind(let tag):
            let found = try WPNote.query(on: tx).where(\.tag == tag).all().sorted { ($0.id ?? "") < ($1.id ?? "") }
            return [.found(found.map(Self.noteText).joined(separator: ", "))]
        case .readHistory(let limit):
            let (text, next) = try readHistory(tx, since: historyRead, limit: limit, keeping: true)
            historyRead = next
            return [.found(text)]
        case .pruneHistory(let keep):
            let deleted = try tx.pruneHistory(before: tokensRead[tokensRead.count - 1 - keep])
            let (kept, _) = try readHistory(tx, since: nil, limit: 1000, keeping: false)
            return [.found("pruned \(deleted); kept " + kept)]
        default:
            return [.other("\(step) is not a note step")]
        }
        return [.ok]
    }

    /// The pages of the history after `since`, `limit` transactions each, asked from each page's `next` until no
    /// more follow; with `keeping`, the tokens of the transactions read are kept for prunes.
    private func readHistory(_ tx: Transaction, since: HistoryToken?, limit: Int, keeping: Bool) throws -> (
        String, HistoryToken?
    ) {
        var pages: [String] = []
        var since = since
        var last = since?.value
        for _ in 0..<10_000 {
            let page = try tx.changes(since: since, limit: limit)
            let (transactions, problem) = HistoryText.transactions(page, after: last)
            pages.append(HistoryText.page(transactions, hasMore: page.hasMore) + (problem.map { " (\($0))" } ?? ""))
            if transactions.count > limit { pages.append("(\(transactions.count) transactions, limit \(limit))") }
            if keeping {
                var seen: Int64?
                for change in page.changes where change.token != seen {
                    seen = change.token
                    tokensRead.append(HistoryToken(database: page.next.database, value: change.token))
                }
            }
            if let t = page.changes.last?.token { last = t }
            since = page.next
            if !page.hasMore { break }
        }
        return (pages.joined(separator: " "), since)
    }

    static func noteText(_ note: WPNote) -> String {
        WriteSnapshot.note(key: note.id ?? "nil", n: note.n, tag: note.tag, secret: note.secret)
    }

    /// `model.save(on: db)` from a task cancelled at once, while this program holds the only connection.
    private func cancelledSave(_ model: WPAccount) -> (WPAccount, (any Error)?) {
        let result = Mutex<(WPAccount, (any Error)?)?>(nil)
        let done = DispatchSemaphore(value: 0)
        let db = self.db
        // On a thread of its own: the caller blocks below, and a whole test run can hold every cooperative thread
        // for longer than the wait (a starved task is not a cancelled save).
        let task = Task(executorPreference: QueueExecutor.shared) {
            var copy = model
            do {
                try await copy.save(on: db)
                result.withLock { $0 = (copy, nil) }
            } catch {
                result.withLock { $0 = (copy, error) }
            }
            done.signal()
        }
        task.cancel()
        guard done.wait(timeout: .now() + 60) == .success, let r = result.withLock({ $0 }) else {
            return (model, StrataError.transactionMisuse("a cancelled save did not end within 60 s"))
        }
        return r
    }

    /// Loses the connection `tx` runs on: PostgreSQL's server terminates its backend; elsewhere (no server to
    /// lose) the body throws what a lost connection throws.
    private func loseConnection(_ tx: Transaction) throws {
        guard let terminator = sibling, db.driverName == "postgres" else {
            throw StrataError.connectionLost("the connection was lost (simulated)")
        }
        guard case .integer(let pid)? = try tx.unsafeRawExecute("SELECT pg_backend_pid()").first?.first else {
            throw StrataError.invalidQuery("no backend pid")
        }
        try terminator.readSync { t in
            _ = try t.unsafeRawExecute("SELECT pg_terminate_backend(CAST(? AS integer))", [pid])
        }
    }

    /// What this backend shows now.
    func snapshot() throws -> WriteSnapshot {
        try db.readSync { tx in
            let accounts = try WPAccount.query(on: tx).withDeleted().all()
            var codes: [Int64: String] = [:]
            for a in accounts { codes[a.id ?? -1] = a.code }
            return WriteSnapshot(
                rows: accounts.map { "\($0.code) \($0.balance) v\($0.version)\($0.deletedAt == nil ? "" : " deleted")" }
                    .sorted(),
                entries: try WPEntry.query(on: tx).all().map {
                    "\(codes[$0.accountID] ?? "?"):\($0.amount):\($0.doubled)\($0.postedAt == nil ? ":unposted" : "")"
                }.sorted(),
                handles: handles.map { "\($0.code) \($0.balance) v\($0.version) \($0.id == nil ? "nil" : "id")" },
                notes: try WPNote.query(on: tx).all().map(Self.noteText).sorted(),
                sealed: try WPNoteSealed.query(on: tx).all().map(\.text).sorted(),
                lines: try WPLine.query(on: tx).all().map { "\($0.orderNo) \($0.sku) \($0.qty)" }.sorted(),
                marks: try WPLineMark.query(on: tx).all().map { "\($0.orderNo) \($0.sku)" }.sorted())
        }
    }
}

/// The reference's skip decisions for one top-level step, handed out in the order the steps run.
final class SkipCursor {
    private let decisions: [Bool]
    private var position = 0
    init(_ decisions: [Bool]) { self.decisions = decisions }
    func next() -> Bool {
        defer { position += 1 }
        return position < decisions.count ? decisions[position] : true
    }
}

/// Where a write program first disagreed with the reference.
public struct WriteFailure: CustomStringConvertible {
    /// The program, shrunk.
    public var program: [WriteStep]
    /// The top-level step (from 0) after which the backends disagreed.
    public var step: Int
    public var details: String

    public var description: String {
        "after step \(step):\n\(details)\nprogram (\(program.count) steps, shortest found):\n"
            + program.map { $0.swift(1) }.joined(separator: "\n")
    }
}

/// Runs seeded write programs on every backend beside ``WriteReference``.
public final class WriteRunner {
    let backends: [WriteBackend]
    /// Statements are not counted; steps are.
    public private(set) var steps = 0

    public init(urls: [String], drivers: [DriverFactory]) throws {
        backends = try urls.map { try WriteBackend(url: $0, drivers: drivers) }
    }

    /// The backends' names.
    public var names: [String] { backends.map(\.name) }

    /// Runs `program`; nil when every backend matched the reference after every step.
    public func check(_ program: [WriteStep]) throws -> WriteFailure? {
        for b in backends { try b.reset() }
        var reference = WriteReference()
        for (n, step) in program.enumerated() {
            let first = reference.skipped.count
            let expected = reference.apply(step)
            let decisions = Array(reference.skipped[first...])
            steps += 1
            var problems: [String] = []
            let want = reference.snapshot
            for b in backends {
                let cursor = SkipCursor(decisions)
                let got = b.run(step, skip: { _ in cursor.next() })
                if got != expected && !b.locksBeforeCallbacks(step, got: got, expected: expected) {
                    problems.append("\(b.name): outcomes \(got), expected \(expected)")
                }
                let shown = try b.snapshot()
                if shown != want { problems.append("\(b.name):\n  \(shown)\nexpected:\n  \(want)") }
            }
            if !problems.isEmpty {
                return WriteFailure(program: program, step: n, details: problems.joined(separator: "\n"))
            }
        }
        return nil
    }

    /// `failure`'s program made as short as it stays failing: whole steps, then nested steps, removed one at a time.
    public func shrink(_ failure: WriteFailure) throws -> WriteFailure {
        var best = failure
        best.program = Array(best.program.prefix(best.step + 1))
        var improved = true
        var rounds = 0
        while improved && rounds < 50 {
            improved = false
            rounds += 1
            for candidate in Self.smaller(best.program) {
                if let f = try check(candidate) {
                    best = f
                    best.program = Array(f.program.prefix(f.step + 1))
                    improved = true
                    break
                }
            }
        }
        return best
    }

    /// Programs one step (top-level or nested) shorter than `program`.
    static func smaller(_ program: [WriteStep]) -> [[WriteStep]] {
        var out: [[WriteStep]] = []
        for i in program.indices.reversed() {
            var p = program
            p.remove(at: i)
            out.append(p)
            if let nested = program[i].nested {
                for inner in smaller(nested) {
                    var q = program
                    q[i] = program[i].replacingNested(inner)
                    out.append(q)
                }
            }
        }
        return out
    }
}

/// A task executor on a serial queue of its own, for a task a blocked thread waits for.
final class QueueExecutor: TaskExecutor {
    static let shared = QueueExecutor()
    private let queue = DispatchQueue(label: "strata.write-runner.tasks")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
