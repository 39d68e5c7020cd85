// WriteRunner: runs write programs on every backend beside the reference, compares after each step, and shrinks
// a failing program to its shortest form.
import Foundation
import Strata

/// A write program's run on one backend: its database and the models the program holds there.
final class WriteBackend {
    let name: String
    let db: Database
    var handles: [WPAccount] = []

    init(url: String, drivers: [DriverFactory]) throws {
        var configuration = Configuration()
        configuration.maxConnections = 1
        db = try Database.open(url, drivers: drivers, configuration: configuration)
        name = "\(db.driverName) (\(URLText.redacted(url)))"
    }

    /// Empty tables for a new program.
    func reset() throws {
        handles = []
        try db.writeSync { tx in
            _ = try tx.execute(.dropTable(WPEntry.schema.name))
            _ = try tx.execute(.dropTable(WPAccount.schema.name))
            try tx.migrate([WPAccount.self, WPEntry.self])
        }
    }

    /// Runs one top-level step.
    func run(_ step: WriteStep, skip: (WriteStep) -> Bool) -> [WriteOutcome] {
        do {
            return try db.readSync { tx in try self.apply(step, tx, skip: skip) }
        } catch {
            return [Self.outcome(error)]
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
            default: return .other(e.caseName + ": \(e)")
            }
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
        case .entry(let i, let amount):
            return attempt {
                var e = WPEntry(accountID: handles[i].id ?? -1, amount: amount)
                try e.save(tx)
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
            return attempt {
                var u = WPAccount(code: code, balance: balance)
                try u.upsert(tx, onConflict: \.code)
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
                    case .commit: break
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
                entries: try WPEntry.query(on: tx).all().map { "\(codes[$0.accountID] ?? "?"):\($0.amount)" }.sorted(),
                handles: handles.map { "\($0.code) \($0.balance) v\($0.version) \($0.id == nil ? "nil" : "id")" })
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
                if got != expected { problems.append("\(b.name): outcomes \(got), expected \(expected)") }
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
