// WriteProgram: a seeded program of writes, failures and rollbacks over WPAccount, WPEntry and the history-tracked,
// encrypted WPNote, with reads and prunes of the change history, and its Swift text.

/// One step of a write program. Steps name the models the program holds by their position (handles); a step
/// whose handle does not exist (yet) does nothing, on every backend and in the reference alike.
public indirect enum WriteStep: Sendable, Equatable {
    /// The least amount of an entry saved as ``WPEntryNarrow`` (100: its doubled amount, 200 or more, is past `Int8`;
    /// the amount itself, below 128, is not).
    static let narrowEntries: Int64 = 100

    /// A new account saved: a new handle.
    case create(code: String, balance: Int64)
    /// The account with this code read back (soft-deleted rows excluded): a new handle when found.
    case fetch(code: String)
    /// `handle.balance += by`, then `save`.
    case adjust(handle: Int, by: Int64)
    /// `save` with nothing newly assigned.
    case saveAgain(handle: Int)
    /// The handle sent through JSON (as a request body would be), `balance += by`, saved; it replaces the handle.
    case decodedSave(handle: Int, by: Int64)
    /// `delete` (soft: sets `deletedAt`).
    case delete(handle: Int)
    /// `forceDelete` of an account that has entries: refused by the foreign key.
    case forceDelete(handle: Int)
    /// A new entry of the handle's account. An amount of ``narrowEntries`` or more saves it as ``WPEntryNarrow``, whose
    /// `Int8` cannot hold the doubled amount the database computes: the save fails after its row was inserted.
    case entry(handle: Int, amount: Int64)
    /// `insertAll` of new accounts: new handles when it succeeds.
    case insertAll(codes: [String], balance: Int64)
    /// `load` of new accounts (no ids read back, no handles).
    case load(codes: [String], balance: Int64)
    /// `insertAll` of `count` accounts coded `prefix0…`, plus `duplicate` when set (a code that may exist): above
    /// PostgreSQL's staging threshold (COPY into a staging table). No handles are kept.
    case bulkInsert(prefix: String, count: Int, duplicate: String?)
    /// `upsert` on the code: a new handle (its id the row's, not marked stored, remembered in its transaction: a
    /// rollback makes it new again).
    case upsert(code: String, balance: Int64)
    /// `upsertAll` on the code, updating every column or keeping the stored row (`keep`); the models are not
    /// kept. A code repeated in the batch is `invalidQuery` when updating, before any SQL.
    case upsertAll(codes: [String], balance: Int64, keep: Bool)
    /// `update` of every live account whose balance is at least `atLeast`.
    case updateWhere(atLeast: Int64, set: Int64)
    /// Soft `delete` of every live account whose balance is below `below`.
    case deleteWhere(below: Int64)
    /// A transaction running `steps`, then committing, rolling back (`Rollback`) or failing (an error thrown).
    case transaction([WriteStep], end: TransactionEnd)
    /// A savepoint inside a transaction, released or rolled back.
    case savepoint([WriteStep], rollback: Bool)
    /// A transaction taken in raw SQL (`BEGIN`) on one call's connection, running `steps`, then a raw `COMMIT`
    /// (`.commit`), a raw `ROLLBACK` (`.rollback`), an error thrown with it open (`.fail`: the call rolls it
    /// back), or returning with it open (`.leaveOpen`: rolled back, `transactionMisuse`). Top level only.
    case rawTransaction([WriteStep], end: TransactionEnd)
    /// A raw `COMMIT`, `ROLLBACK` or `SAVEPOINT` inside a transaction Strata opened: refused, nothing changes.
    case rawMisuse(statement: String)
    /// A transaction with a retry policy of 3 attempts whose first `failures` attempts run `steps`, then throw
    /// `serializationFailure` (as a lost race would). Top level only.
    case retried([WriteStep], failures: Int)
    /// `handle.balance += by`, then `save(on: db)` from a task cancelled while it waits for the only connection
    /// (held by the program): `CancellationError`, nothing written, the model unchanged.
    case cancelledSave(handle: Int, by: Int64)
    /// A transaction running `steps`, after which its connection is lost: on PostgreSQL the server terminates
    /// the backend (`pg_terminate_backend`), elsewhere the body throws `connectionLost`. Rolled back; the pool
    /// gives the next step a working connection. Top level only.
    case connectionLost([WriteStep])
    /// `handle.balance += by`, then `save` while another connection holds the write lock (SQLite `BEGIN
    /// IMMEDIATE` on a file, PostgreSQL `LOCK TABLE … EXCLUSIVE`; simulated where no second connection can see
    /// the data): `busy` past the busy timeout, nothing written, the model unchanged.
    case busySave(handle: Int, by: Int64)
    /// A transaction begun with `onFailedStatement: .abortTransaction` (top level only): the first failed
    /// statement aborts it (or the savepoint it ran in); later statements are refused, and it rolls back.
    case abortingTransaction([WriteStep], end: TransactionEnd)
    /// A note saved with the key `key`: its row's every column updated when it exists, else inserted.
    case noteSave(key: String, n: Int64, tag: String, secret: String?)
    /// A note upserted on its key (`onConflict: \.id`): its row's every column updated when it exists (or kept,
    /// `keep`: `DO NOTHING`), else inserted.
    case noteUpsert(key: String, n: Int64, tag: String, secret: String?, keep: Bool)
    /// The note with the key `key` read (when it exists), `n += by` and its tag set to `retag` when given, saved:
    /// an update of the assigned columns.
    case noteEdit(key: String, by: Int64, retag: String?)
    /// The note with the key `key` read (when it exists) and deleted.
    case noteDelete(key: String)
    /// `insertAll` (or `load`) of new notes: all or nothing (a repeated or existing key is `unique`).
    case noteInsertAll(keys: [String], tag: String, load: Bool)
    /// `update` of the notes whose deterministic encrypted tag equals `tag`: `n` set to `n`, or the tag to `retag`.
    case noteUpdateWhere(tag: String, n: Int64, retag: String?)
    /// `delete` of the notes whose tag equals `tag`.
    case noteDeleteWhere(tag: String)
    /// The notes whose tag equals `tag` (an equality filter on a deterministic encrypted column): their keys and
    /// decrypted secrets.
    case noteFind(tag: String)
    /// `changes(since:limit:)` from the last token read, page after page of at most `limit` transactions until no
    /// more: every page's transactions (table, key, operation, columns; tokens compared by order). Top level only.
    case readHistory(limit: Int)
    /// `pruneHistory(before:)` the token of the `keep`-th last transaction read (0: the last one), then the whole
    /// history kept read from the start. Top level only.
    case pruneHistory(keep: Int)
    /// An order line built with its composite key and saved: its row updated when it exists, else inserted.
    case lineSave(order: Int64, sku: String, qty: Int64)
    /// An order line upserted on its composite key (the default target): updated (or kept, `keep`), else inserted.
    case lineUpsert(order: Int64, sku: String, qty: Int64, keep: Bool)
    /// The line with this key read (when it exists), `qty += by`, saved: an update `WHERE` both key columns.
    case lineEdit(order: Int64, sku: String, by: Int64)
    /// The line with this key read (when it exists), its `sku` assigned `to`, saved: refused (`invalidValue`, a
    /// stored model's key column), nothing written.
    case lineRekey(order: Int64, sku: String, to: String)
    /// The line with this key read (when it exists) and deleted.
    case lineDelete(order: Int64, sku: String)
    /// A mark inserted on the line with this key, through its two-column foreign key: `foreignKey` when no line has
    /// the key (nothing written). Deleting the line destroys its marks.
    case lineMark(order: Int64, sku: String)
    /// The lines with a mark (or, not `marked`, without one), by `whereExists` / `whereNotExists` over the marks'
    /// two-column key: a correlated EXISTS matching both columns.
    case lineFindMarked(marked: Bool)
    /// `qty` set on every line without a mark, in one UPDATE whose rows `whereNotExists` picks.
    case lineResetUnmarked(qty: Int64)
    /// Every backend's database reopened over the same data with a keyring that holds one more key, the newest:
    /// later writes seal under it, older envelopes still open, and equality filters find values sealed under any
    /// key. Top level only.
    case rotateKey

    /// Whether the step (or one nested in it) writes or reads the history-tracked, encrypted note, or the history.
    public var touchesHistory: Bool {
        switch self {
        case .noteSave, .noteUpsert, .noteEdit, .noteDelete, .noteInsertAll, .noteUpdateWhere, .noteDeleteWhere,
            .noteFind, .readHistory, .pruneHistory, .rotateKey:
            return true
        default: return nested?.contains { $0.touchesHistory } ?? false
        }
    }

    /// How many steps `program` holds (nested ones and the transactions around them included), and how many of
    /// them write or read the note or the history.
    public static func census(_ program: [WriteStep]) -> (steps: Int, history: Int) {
        var steps = 0
        var history = 0
        func visit(_ step: WriteStep) {
            steps += 1
            if let nested = step.nested {
                nested.forEach(visit)
            } else if step.touchesHistory {
                history += 1
            }
        }
        program.forEach(visit)
        return (steps, history)
    }

    /// How a generated transaction ends.
    public enum TransactionEnd: Sendable, Equatable {
        case commit, rollback, fail, leaveOpen
    }

    /// The step as Swift, indented by `indent` levels.
    public func swift(_ indent: Int = 0) -> String {
        let pad = String(repeating: "    ", count: indent)
        switch self {
        case .create(let c, let b):
            return pad + "var h = WPAccount(code: \"\(c)\", balance: \(b)); try h.save(tx)  // new handle"
        case .fetch(let c):
            return pad + "h = try WPAccount.query(on: tx).where(\\.code == \"\(c)\").first()  // new handle"
        case .adjust(let h, let d): return pad + "handles[\(h)].balance += \(d); try handles[\(h)].save(tx)"
        case .saveAgain(let h): return pad + "try handles[\(h)].save(tx)"
        case .decodedSave(let h, let d):
            return pad
                + "handles[\(h)] = decode(encode(handles[\(h)])); handles[\(h)].balance += \(d); try handles[\(h)].save(tx)"
        case .delete(let h): return pad + "try handles[\(h)].delete(tx)"
        case .forceDelete(let h): return pad + "try handles[\(h)].forceDelete(tx)"
        case .entry(let h, let a) where a >= WriteStep.narrowEntries:
            return pad + "var e = WPEntryNarrow(accountID: handles[\(h)].id!, amount: \(a)); try e.save(tx)"
        case .entry(let h, let a):
            return pad + "var e = WPEntry(accountID: handles[\(h)].id!, amount: \(a)); try e.save(tx)"
        case .insertAll(let codes, let b):
            return pad
                + "var batch = \(codes.map { "WPAccount(code: \"\($0)\", balance: \(b))" }); try WPAccount.insertAll(&batch, tx)"
        case .load(let codes, let b):
            return pad + "try WPAccount.load(\(codes.map { "WPAccount(code: \"\($0)\", balance: \(b))" }), tx)"
        case .bulkInsert(let prefix, let count, let duplicate):
            return pad + "var bulk = (0..<\(count)).map { WPAccount(code: \"\(prefix)\\($0)\", balance: 0) }"
                + (duplicate.map { " + [WPAccount(code: \"\($0)\", balance: 0)]" } ?? "")
                + "; try WPAccount.insertAll(&bulk, tx)"
        case .upsert(let c, let b):
            return pad + "var u = WPAccount(code: \"\(c)\", balance: \(b)); try u.upsert(tx, onConflict: \\.code)"
                + "  // new handle"
        case .upsertAll(let codes, let b, let keep):
            return pad + "var batch = \(codes.map { "WPAccount(code: \"\($0)\", balance: \(b))" }); "
                + "try WPAccount.upsertAll(&batch, tx, onConflict: [\\.code]\(keep ? ", do: .nothing" : ""))"
        case .updateWhere(let t, let v):
            return pad + "try WPAccount.query(on: tx).where(\\.balance >= \(t)).set(\\.balance, to: \(v)).update()"
        case .deleteWhere(let t): return pad + "try WPAccount.query(on: tx).where(\\.balance < \(t)).delete()"
        case .transaction(let steps, let end):
            let tail: String
            switch end {
            case .commit: tail = "}  // commits"
            case .rollback: tail = "    throw Rollback()\n" + pad + "}"
            case .fail: tail = "    throw Abort()\n" + pad + "}"
            case .leaveOpen: tail = "}  // returns with it open"
            }
            return pad + "try db.transaction { tx in\n" + steps.map { $0.swift(indent + 1) }.joined(separator: "\n")
                + (steps.isEmpty ? "" : "\n") + pad + tail
        case .savepoint(let steps, let rollback):
            return pad + "try tx.savepoint { tx in\n" + steps.map { $0.swift(indent + 1) }.joined(separator: "\n")
                + (steps.isEmpty ? "" : "\n") + pad + (rollback ? "    throw Rollback()\n" + pad + "}" : "}")
        case .rawTransaction(let steps, let end):
            let tail: String
            switch end {
            case .commit: tail = "    try tx.unsafeRawExecute(\"COMMIT\")\n" + pad + "}"
            case .rollback: tail = "    try tx.unsafeRawExecute(\"ROLLBACK\")\n" + pad + "}"
            case .fail: tail = "    throw Abort()\n" + pad + "}"
            case .leaveOpen: tail = "}  // returns with it open"
            }
            return pad + "try db.withConnection { tx in\n" + pad + "    try tx.unsafeRawExecute(\"BEGIN\")\n"
                + steps.map { $0.swift(indent + 1) }.joined(separator: "\n") + (steps.isEmpty ? "" : "\n") + pad + tail
        case .rawMisuse(let statement): return pad + "try tx.unsafeRawExecute(\"\(statement)\")"
        case .retried(let steps, let failures):
            return pad + "var attempt = 0\n" + pad + "try db.transaction(retry: .attempts(3)) { tx in\n" + pad
                + "    attempt += 1\n" + steps.map { $0.swift(indent + 1) }.joined(separator: "\n")
                + (steps.isEmpty ? "" : "\n") + pad
                + "    if attempt <= \(failures) { throw StrataError.serializationFailure }\n"
                + pad + "}"
        case .cancelledSave(let h, let d):
            return pad + "handles[\(h)].balance += \(d); let t = Task { try await handles[\(h)].save(on: db) }; "
                + "t.cancel()  // while the program holds the only connection"
        case .busySave(let h, let d):
            return pad + "handles[\(h)].balance += \(d); try handles[\(h)].save(tx)  // while another connection "
                + "holds the write lock"
        case .abortingTransaction(let steps, let end):
            let tail: String
            switch end {
            case .commit, .leaveOpen: tail = "}  // commits, or throws if a failure aborted it"
            case .rollback: tail = "    throw Rollback()\n" + pad + "}"
            case .fail: tail = "    throw Abort()\n" + pad + "}"
            }
            return pad + "try db.transaction(onFailedStatement: .abortTransaction) { tx in\n"
                + steps.map { $0.swift(indent + 1) }.joined(separator: "\n") + (steps.isEmpty ? "" : "\n") + pad + tail
        case .connectionLost(let steps):
            return pad + "try db.transaction { tx in\n" + steps.map { $0.swift(indent + 1) }.joined(separator: "\n")
                + (steps.isEmpty ? "" : "\n") + pad
                + "    terminateBackend(tx); _ = try WPAccount.query(on: tx).count()\n"
                + pad + "}"
        default: return pad + noteSwift
        }
    }

    /// A note or history step as Swift (one line).
    private var noteSwift: String {
        func quoted(_ s: String?) -> String { s.map { "\"\($0)\"" } ?? "nil" }
        switch self {
        case .noteSave(let k, let n, let tag, let secret):
            return "var note = WPNote(id: \"\(k)\", n: \(n), tag: \"\(tag)\", secret: \(quoted(secret))); "
                + "try note.save(tx)"
        case .noteUpsert(let k, let n, let tag, let secret, let keep):
            return "var note = WPNote(id: \"\(k)\", n: \(n), tag: \"\(tag)\", secret: \(quoted(secret))); "
                + "try note.upsert(tx, onConflict: \\.id\(keep ? ", do: .nothing" : ""))"
        case .noteEdit(let k, let by, let retag):
            return "if var note = try WPNote.find(\"\(k)\", tx) { note.n += \(by)"
                + (retag.map { "; note.tag = \"\($0)\"" } ?? "") + "; try note.save(tx) }"
        case .noteDelete(let k): return "_ = try WPNote.find(\"\(k)\", tx)?.delete(tx)"
        case .noteInsertAll(let keys, let tag, let load):
            let notes = keys.map { "WPNote(id: \"\($0)\", n: 0, tag: \"\(tag)\", secret: \"s-\($0)\")" }
            return load
                ? "try WPNote.load(\(notes), tx)" : "var notes = \(notes); try WPNote.insertAll(&notes, tx)"
        case .noteUpdateWhere(let tag, let n, let retag):
            let set = retag.map { "set(\\.tag, to: \"\($0)\")" } ?? "set(\\.n, to: \(n))"
            return "try WPNote.query(on: tx).where(\\.tag == \"\(tag)\").\(set).update()"
        case .noteDeleteWhere(let tag): return "try WPNote.query(on: tx).where(\\.tag == \"\(tag)\").delete()"
        case .noteFind(let tag): return "found = try WPNote.query(on: tx).where(\\.tag == \"\(tag)\").all()"
        case .readHistory(let limit):
            return "repeat { page = try tx.changes(since: page?.next, limit: \(limit)) } while page.hasMore"
        case .pruneHistory(let keep):
            return "try tx.pruneHistory(before: tokensRead[tokensRead.count - \(keep + 1)]); "
                + "all = try tx.changes(since: nil)"
        case .lineSave(let o, let sku, let q):
            return "var line = WPLine(orderNo: \(o), sku: \"\(sku)\", qty: \(q)); try line.save(tx)"
        case .lineUpsert(let o, let sku, let q, let keep):
            return "var line = WPLine(orderNo: \(o), sku: \"\(sku)\", qty: \(q)); try line.upsert(tx"
                + (keep ? ", do: .nothing)" : ")")
        case .lineEdit(let o, let sku, let by):
            return "if var line = try WPLine.find(WPLine.ID(orderNo: \(o), sku: \"\(sku)\"), tx) { line.qty += \(by); "
                + "try line.save(tx) }"
        case .lineRekey(let o, let sku, let to):
            return "if var line = try WPLine.find(WPLine.ID(orderNo: \(o), sku: \"\(sku)\"), tx) { "
                + "line.sku = \"\(to)\"; try line.save(tx) }  // invalidValue"
        case .lineDelete(let o, let sku):
            return "_ = try WPLine.find(WPLine.ID(orderNo: \(o), sku: \"\(sku)\"), tx)?.delete(tx)"
        case .lineMark(let o, let sku):
            return "var mark = WPLineMark(orderNo: \(o), sku: \"\(sku)\"); try mark.save(tx)"
        case .lineFindMarked(let marked):
            return "try WPLine.query(on: tx).\(marked ? "whereExists" : "whereNotExists")(WPLine.marks).all()"
        case .lineResetUnmarked(let qty):
            return "try WPLine.query(on: tx).whereNotExists(WPLine.marks).set(\\.qty, to: \(qty)).update()"
        case .rotateKey:
            return "keys.append(AESGCMKeyring.Key(id: \"wp-rot…\", …)); db = Database(driver: db.driver, "
                + "configuration: withKeyring(keys))"
        default: return "// \(self)"
        }
    }

    /// The steps nested in a transaction or savepoint.
    var nested: [WriteStep]? {
        switch self {
        case .transaction(let s, _), .savepoint(let s, _), .rawTransaction(let s, _), .retried(let s, _),
            .connectionLost(let s), .abortingTransaction(let s, _):
            return s
        default: return nil
        }
    }

    /// This step with its nested steps replaced.
    func replacingNested(_ steps: [WriteStep]) -> WriteStep {
        switch self {
        case .transaction(_, let end): return .transaction(steps, end: end)
        case .savepoint(_, let rollback): return .savepoint(steps, rollback: rollback)
        case .rawTransaction(_, let end): return .rawTransaction(steps, end: end)
        case .retried(_, let failures): return .retried(steps, failures: failures)
        case .connectionLost: return .connectionLost(steps)
        case .abortingTransaction(_, let end): return .abortingTransaction(steps, end: end)
        default: return self
        }
    }
}

/// Generates write programs from a seed.
public struct WriteProgramGenerator {
    static let codes = ["a", "b", "c", "d", "e", "f", "g"]
    var handles = 0
    var bulk = 0

    public init() {}

    /// A program of `length` top-level steps.
    public mutating func program(length: Int, _ rng: inout SplitMix64) -> [WriteStep] {
        handles = 0
        bulk = 0
        // It ends reading the history, so every program's committed changes are compared at least once.
        return (0..<length).map { _ in step(depth: 0, &rng) } + [.readHistory(limit: 1 + rng.below(4))]
    }

    static let noteKeys = ["n0", "n1", "n2", "n3", "n4"]
    static let tags = ["red", "blue", "green"]
    /// The share of steps (at every depth) that write or read the note or the history.
    static let noteShare = 0.15

    /// A step on the history-tracked, encrypted note, or (at the top level) a read or prune of the history.
    mutating func noteStep(depth: Int, _ rng: inout SplitMix64) -> WriteStep {
        let key = rng.pick(Self.noteKeys)
        switch rng.below(100) {
        case 0..<22:
            let (n, tag, secret) = (
                Int64(rng.below(50)), rng.pick(Self.tags), rng.chance(0.2) ? nil : "s\(rng.below(100))"
            )
            if rng.chance(0.3) { return .noteUpsert(key: key, n: n, tag: tag, secret: secret, keep: rng.chance(0.3)) }
            return .noteSave(key: key, n: n, tag: tag, secret: secret)
        case 22..<40:
            return .noteEdit(key: key, by: Int64(1 + rng.below(9)), retag: rng.chance(0.3) ? rng.pick(Self.tags) : nil)
        case 40..<48: return .noteDelete(key: key)
        case 48..<58:
            let keys = (0..<(1 + rng.below(3))).map { _ in rng.pick(Self.noteKeys) }
            return .noteInsertAll(keys: keys, tag: rng.pick(Self.tags), load: rng.chance(0.3))
        case 58..<68:
            return .noteUpdateWhere(
                tag: rng.pick(Self.tags), n: Int64(rng.below(50)), retag: rng.chance(0.3) ? rng.pick(Self.tags) : nil)
        case 68..<74: return .noteDeleteWhere(tag: rng.pick(Self.tags))
        case 74..<82: return .noteFind(tag: rng.pick(Self.tags))
        default:
            guard depth == 0 else { return .noteEdit(key: key, by: Int64(1 + rng.below(9)), retag: nil) }
            if rng.chance(0.15) { return .rotateKey }
            if rng.chance(0.35) { return .pruneHistory(keep: rng.below(4)) }
            return .readHistory(limit: 1 + rng.below(4))
        }
    }

    static let lineSKUs = ["x", "y", "z"]
    /// The share of steps (at every depth) on the order line with a composite key.
    static let lineShare = 0.06

    /// A step on the order line: two orders, three SKUs, so keys share one column or the other.
    func lineStep(_ rng: inout SplitMix64) -> WriteStep {
        let (order, sku) = (Int64(1 + rng.below(2)), rng.pick(Self.lineSKUs))
        switch rng.below(100) {
        case 0..<35: return .lineSave(order: order, sku: sku, qty: Int64(rng.below(20)))
        case 35..<55: return .lineUpsert(order: order, sku: sku, qty: Int64(rng.below(20)), keep: rng.chance(0.3))
        case 55..<80: return .lineEdit(order: order, sku: sku, by: Int64(1 + rng.below(5)))
        case 80..<88: return .lineRekey(order: order, sku: sku, to: rng.pick(Self.lineSKUs))
        case 88..<93: return .lineMark(order: order, sku: sku)
        case 93..<96: return .lineFindMarked(marked: rng.chance(0.5))
        case 96..<98: return .lineResetUnmarked(qty: Int64(rng.below(20)))
        default: return .lineDelete(order: order, sku: sku)
        }
    }

    private func balance(_ rng: inout SplitMix64) -> Int64 {
        if rng.chance(0.08) { return WPAccount.refusedBeforeWrite }
        if rng.chance(0.08) { return WPAccount.refusedAfterWrite }
        return Int64(rng.below(41)) - 20
    }

    private func delta(_ rng: inout SplitMix64) -> Int64 {
        if rng.chance(0.1) { return WPAccount.refusedBeforeWrite }
        if rng.chance(0.1) { return WPAccount.refusedAfterWrite }
        return Int64(rng.below(21)) - 10
    }

    private func handle(_ rng: inout SplitMix64) -> Int { rng.below(Swift.max(1, handles + 1)) }

    /// An entry's amount: below 100 mostly, else one whose read-back fails (``WriteStep/narrowEntries``).
    private func entryAmount(_ rng: inout SplitMix64) -> Int64 {
        rng.chance(0.15) ? WriteStep.narrowEntries + Int64(rng.below(28)) : Int64(rng.below(100))
    }

    mutating func step(depth: Int, _ rng: inout SplitMix64) -> WriteStep {
        if rng.chance(Self.noteShare) { return noteStep(depth: depth, &rng) }
        if rng.chance(Self.lineShare) { return lineStep(&rng) }
        let roll = rng.below(100)
        switch roll {
        case 0..<14:
            handles += 1
            return .create(code: rng.pick(Self.codes), balance: balance(&rng))
        case 14..<22:
            handles += 1
            return .fetch(code: rng.pick(Self.codes))
        case 22..<40: return .adjust(handle: handle(&rng), by: delta(&rng))
        case 40..<44: return .saveAgain(handle: handle(&rng))
        case 44..<50: return .decodedSave(handle: handle(&rng), by: delta(&rng))
        case 50..<55: return .delete(handle: handle(&rng))
        case 55..<57: return .forceDelete(handle: handle(&rng))
        case 57..<62: return .entry(handle: handle(&rng), amount: entryAmount(&rng))
        case 62..<67:
            let n = 1 + rng.below(3)
            handles += n
            return .insertAll(codes: (0..<n).map { _ in rng.pick(Self.codes) }, balance: Int64(rng.below(30)))
        case 67..<70:
            if rng.chance(0.4) {
                let codes = (0..<(1 + rng.below(3))).map { _ in rng.pick(Self.codes) }
                return .upsertAll(codes: codes, balance: Int64(rng.below(30)), keep: rng.chance(0.4))
            }
            handles += 1
            return .upsert(code: rng.pick(Self.codes), balance: Int64(rng.below(30)))
        case 70..<72:
            if rng.chance(0.1) {
                bulk += 1
                return .bulkInsert(
                    prefix: "bulk\(bulk)-", count: 1_500, duplicate: rng.chance(0.8) ? rng.pick(Self.codes) : nil)
            }
            return .load(
                codes: (0..<(1 + rng.below(3))).map { _ in rng.pick(Self.codes) }, balance: Int64(rng.below(30)))
        case 72..<75: return .updateWhere(atLeast: Int64(rng.below(30)) - 5, set: Int64(rng.below(30)))
        case 75..<78: return .deleteWhere(below: Int64(rng.below(20)) - 10)
        case 78..<80:
            // At the top level only: inside the program's transaction the holder would wait for the program.
            if depth == 0, rng.chance(0.15) { return .busySave(handle: handle(&rng), by: delta(&rng)) }
            return .cancelledSave(handle: handle(&rng), by: delta(&rng))
        case 80..<81 where depth > 0:
            return .rawMisuse(statement: rng.pick(["COMMIT", "ROLLBACK", "SAVEPOINT mine", "BEGIN", "release x"]))
        case 80..<86 where depth == 0:
            let steps = (0..<(1 + rng.below(4))).map { _ in step(depth: 1, &rng) }
            switch rng.below(4) {
            case 3:
                let inner = (0..<(1 + rng.below(6))).map { _ in abortingStep(depth: 1, &rng) }
                let end: WriteStep.TransactionEnd = rng.chance(0.6) ? .commit : rng.chance(0.5) ? .rollback : .fail
                return .abortingTransaction(inner, end: end)
            case 0:
                let ends: [WriteStep.TransactionEnd] = [.commit, .commit, .rollback, .fail, .leaveOpen]
                // A raw COMMIT or ROLLBACK directly inside a raw transaction is allowed (it ends it): not misuse.
                let inside = steps.map { s -> WriteStep in
                    if case .rawMisuse = s { return .rawMisuse(statement: "SAVEPOINT mine") }
                    return s
                }
                return .rawTransaction(inside, end: rng.pick(ends))
            case 1: return .retried(steps, failures: rng.pick([0, 1, 1, 2, 3]))
            default: return .connectionLost(steps)
            }
        default:
            if depth >= 2 { return .adjust(handle: handle(&rng), by: delta(&rng)) }
            let count = 1 + rng.below(5)
            var steps: [WriteStep] = []
            for _ in 0..<count { steps.append(step(depth: depth + 1, &rng)) }
            if depth == 0 {
                let end: WriteStep.TransactionEnd = rng.chance(0.5) ? .commit : rng.chance(0.5) ? .rollback : .fail
                return .transaction(steps, end: end)
            }
            return .savepoint(steps, rollback: rng.chance(0.5))
        }
    }

    /// A step inside a transaction that a failed statement aborts: the kinds whose statements the reference
    /// follows one by one (a unique violation, a refused delete and a callback after the write abort it; a stale
    /// save and a callback before the write do not), note steps, and savepoints of them.
    mutating func abortingStep(depth: Int, _ rng: inout SplitMix64) -> WriteStep {
        // Note steps too (nested: no history reads): an insertAll of a stored key fails and aborts it, and nothing
        // of an aborted transaction reaches the history.
        if rng.chance(Self.noteShare) { return noteStep(depth: depth, &rng) }
        switch rng.below(100) {
        case 0..<22:
            handles += 1
            return .create(code: rng.pick(Self.codes), balance: balance(&rng))
        case 22..<30:
            handles += 1
            return .fetch(code: rng.pick(Self.codes))
        case 30..<50: return .adjust(handle: handle(&rng), by: delta(&rng))
        case 50..<55: return .saveAgain(handle: handle(&rng))
        case 55..<61: return .delete(handle: handle(&rng))
        case 61..<65: return .forceDelete(handle: handle(&rng))
        case 65..<72: return .entry(handle: handle(&rng), amount: entryAmount(&rng))
        case 72..<78: return .updateWhere(atLeast: Int64(rng.below(30)) - 5, set: Int64(rng.below(30)))
        case 78..<84: return .deleteWhere(below: Int64(rng.below(20)) - 10)
        default:
            if depth >= 2 { return .adjust(handle: handle(&rng), by: delta(&rng)) }
            let steps = (0..<(1 + rng.below(4))).map { _ in abortingStep(depth: depth + 1, &rng) }
            return .savepoint(steps, rollback: rng.chance(0.3))
        }
    }
}
