// WriteReference: what every write step must do, in plain Swift: the rows, and the models the program holds.

/// What a step ended with, the same on every backend.
public enum WriteOutcome: Sendable, Equatable, CustomStringConvertible {
    case ok, skipped, unique, stale, callback, notPersisted, foreignKey, aborted
    case misuse, serialization, cancelled, connectionLost, busy, invalid
    /// A value read back that the property's type cannot hold (``StrataError/decodingFailed(model:column:value:expected:)``).
    case decoding
    /// What a read step read: notes found, history pages.
    case found(String)
    case other(String)

    public var description: String {
        switch self {
        case .ok: return "ok"
        case .skipped: return "skipped"
        case .unique: return "unique"
        case .stale: return "stale"
        case .callback: return "callback"
        case .notPersisted: return "notPersisted"
        case .foreignKey: return "foreignKey"
        case .aborted: return "aborted"
        case .misuse: return "misuse"
        case .serialization: return "serialization"
        case .cancelled: return "cancelled"
        case .connectionLost: return "connectionLost"
        case .busy: return "busy"
        case .invalid: return "invalid"
        case .decoding: return "decoding"
        case .found(let s): return s
        case .other(let s): return s
        }
    }
}

/// A stored account as the reference holds it.
struct RefRow: Equatable {
    var code: String
    var balance: Int64
    var version: Int64
    var deleted: Bool
    /// The transaction or savepoint the row was inserted in, while that may still roll back.
    var createdIn: Int? = nil
}

/// What a backend shows after a step: accounts, entries and the models the program holds.
public struct WriteSnapshot: Equatable, CustomStringConvertible {
    /// `code balance vN [deleted]`, sorted by code.
    var rows: [String]
    /// `code:amount:doubled` (the generated column), sorted.
    var entries: [String]
    /// `code balance vN id|nil` for each handle.
    var handles: [String]
    /// `key n tag secret|nil` for each note (decrypted), sorted by key.
    var notes: [String]
    /// `key tagKey secretKey|nil` for each note: the id of the key that sealed each stored envelope.
    var sealed: [String]
    /// `order sku qty` for each order line, sorted.
    var lines: [String] = []
    /// `order sku` for each mark on a line (two-column foreign key), sorted.
    var marks: [String] = []

    public var description: String {
        "rows \(rows)\n  entries \(entries)\n  handles \(handles)\n  notes \(notes)\n  sealed \(sealed)"
            + "\n  lines \(lines)\n  marks \(marks)"
    }

    /// A note as snapshots and ``WriteStep/noteFind(tag:)`` show it.
    static func note(key: String, n: Int64, tag: String, secret: String?) -> String {
        "\(key) \(n) \(tag) \(secret ?? "nil")"
    }
}

/// A stored note as the reference holds it.
struct RefNote: Equatable {
    var n: Int64
    var tag: String
    var secret: String?
    /// The id of the key that sealed the stored tag, and the secret (nil when it is NULL).
    var tagKey: String
    var secretKey: String?

    /// A note whose every column was written now, under `key`.
    init(n: Int64, tag: String, secret: String?, key: String) {
        (self.n, self.tag, self.secret) = (n, tag, secret)
        tagKey = key
        secretKey = secret == nil ? nil : key
    }
}

/// An order line's composite key in the reference.
struct LineKey: Hashable {
    var order: Int64
    var sku: String
}

/// A model the program holds, as the reference sees it: what it shows, and what `save` knows of it.
struct RefHandle {
    var code: String
    var balance: Int64
    var version: Int64
    /// The reference row its id names, or nil when its id is nil.
    var id: Int?
    var stored: Bool
    var dirty = false
    var dirtyAll = false
    var insertScope: Int?
    var insertAssignedKey = false
    var readScope: Int?
    var updateScope: Int?
    var versionBefore: Int64 = 0
}

/// The reference implementation of the write steps (Strata's documented rules, written out plainly).
struct WriteReference {
    var rows: [Int: RefRow] = [:]
    var entries: [(account: Int, amount: Int64)] = []
    var nextID = 1
    var handles: [RefHandle] = []
    /// Scope bookkeeping, as ``UndoScope`` does it: open (0), rolled back (1), committed (2).
    var status: [Int: UInt8] = [:]
    var parent: [Int: Int] = [:]
    var open: [Int] = []
    var nextScope = 1
    /// Set while another connection holds the write lock: every write is `busy`.
    var busyWrites = false
    /// Inside a transaction begun with `onFailedStatement: .abortTransaction`.
    var aborting = false
    /// Whether a failure aborted the innermost open scope: its statements are refused until it ends.
    var aborted = false
    /// The notes, by key.
    var notes: [String: RefNote] = [:]
    /// The order lines' quantities, by composite key.
    var lines: [LineKey: Int64] = [:]
    /// The number of marks on each order line, by its composite key.
    var marks: [LineKey: Int] = [:]
    /// The history's transactions committed since the program began, in commit order.
    var committed: [[HistoryLine]] = []
    /// The changes of the open transaction (its savepoints' included while they may still commit).
    var pendingChanges: [HistoryLine] = []
    /// How many of `committed` the program has read (``WriteStep/readHistory(limit:)``).
    var readCount = 0
    /// How many of `committed` a prune deleted (the oldest ones).
    var prunedBelow = 0
    /// How many ``WriteStep/rotateKey`` steps ran: the newest key is ``WPNote/newestKey(rotations:)``.
    var rotations = 0
    var newestKey: String { WPNote.newestKey(rotations: rotations) }

    func isUndone(_ scope: Int) -> Bool {
        var s: Int? = scope
        while let c = s {
            switch status[c] ?? 0 {
            case 1: return true
            case 2: return false
            default: s = parent[c]
            }
        }
        return false
    }

    /// Whether `scope` committed (a released savepoint, once the transaction around it did).
    func isCommitted(_ scope: Int) -> Bool {
        var s: Int? = scope
        while let c = s {
            switch status[c] ?? 0 {
            case 1: return false
            case 2: return true
            default: s = parent[c]
            }
        }
        return false
    }

    func row(code: String) -> Int? { rows.first { $0.value.code == code }?.key }

    /// Whether the runner should not run `step` at all (the same decision for every backend).
    func skips(_ step: WriteStep) -> Bool {
        switch step {
        case .adjust(let h, _), .saveAgain(let h), .delete(let h), .cancelledSave(let h, _), .busySave(let h, _):
            return h >= handles.count
        case .decodedSave(let h, _):
            // A body whose row is gone could name an id a new row took over on SQLite and memory: not generated.
            // Nor a body naming a row inserted in a scope still open: were it rolled back, SQLite and memory would give
            // its id to the next row, and a body is a plain value that cannot know (README: ids of rolled-back rows).
            guard h < handles.count, let id = handles[h].id, let row = rows[id] else { return true }
            return insertUndone(handles[h]) || readUndone(handles[h]) || row.createdIn.map { !isCommitted($0) } ?? false
        case .forceDelete(let h):
            guard h < handles.count, let id = handles[h].id, !insertUndone(handles[h]) else { return true }
            return !entries.contains { $0.account == id }  // only refused deletes: no id is freed for reuse
        case .entry(let h, _):
            guard h < handles.count, let id = handles[h].id, !insertUndone(handles[h]), !readUndone(handles[h])
            else { return true }
            return rows[id] == nil
        case .pruneHistory(let keep):
            return keep >= readCount  // no token read that far back
        default: return false
        }
    }

    func insertUndone(_ h: RefHandle) -> Bool { h.insertScope.map(isUndone) ?? false }
    func readUndone(_ h: RefHandle) -> Bool { !insertUndone(h) && (h.readScope.map(isUndone) ?? false) }

    /// Whether each step applied so far (nested ones included, in the order they ran) was skipped: the backends
    /// follow the same decisions.
    var skipped: [Bool] = []

    mutating func apply(_ step: WriteStep) -> [WriteOutcome] {
        let skip = skips(step)
        skipped.append(skip)
        if skip { return [.skipped] }
        switch step {
        case .create(let code, let balance):
            var h = RefHandle(code: code, balance: balance, version: 0, id: nil, stored: false)
            let outcome = save(&h)
            handles.append(h)
            return [outcome]
        case .fetch(let code):
            if aborted { return [.misuse] }
            guard let id = rows.first(where: { $0.value.code == code && !$0.value.deleted })?.key, let r = rows[id]
            else { return [.ok] }
            var h = RefHandle(code: r.code, balance: r.balance, version: r.version, id: id, stored: true)
            h.readScope = open.last
            handles.append(h)
            return [.ok]
        case .adjust(let i, let by):
            var h = handles[i]
            h.balance &+= by
            h.dirty = true
            let outcome = save(&h)
            handles[i] = h
            return [outcome]
        case .saveAgain(let i):
            var h = handles[i]
            let outcome = save(&h)
            handles[i] = h
            return [outcome]
        case .decodedSave(let i, let by):
            var h = handles[i]
            h = RefHandle(code: h.code, balance: h.balance &+ by, version: h.version, id: h.id, stored: false)
            let outcome = save(&h)
            handles[i] = h
            return [outcome]
        case .delete(let i):
            let h = handles[i]
            guard let id = h.id, !insertUndone(h) else { return [.notPersisted] }
            if readUndone(h) { return [.stale] }
            if aborted { return [.misuse] }
            if var r = rows[id], !r.deleted {
                r.deleted = true
                rows[id] = r
            }
            return [.ok]
        case .forceDelete(let i):
            if readUndone(handles[i]) { return [.stale] }
            if aborted { return [.misuse] }
            if aborting { aborted = true }
            return [.foreignKey]  // only run (not skipped) for an account with entries
        case .entry(let i, let amount):
            if aborted { return [.misuse] }
            if amount >= WriteStep.narrowEntries {
                // Inserted, then its doubled amount not read back: the save undoes its row (a savepoint, or the
                // transaction it aborts).
                if aborting { aborted = true }
                return [.decoding]
            }
            entries.append((handles[i].id ?? -1, amount))
            return [.ok]
        case .insertAll(let codes, let balance):
            var seen = Set(rows.values.map(\.code))
            for c in codes where !seen.insert(c).inserted { return [.unique] }
            for c in codes {
                rows[nextID] = RefRow(code: c, balance: balance, version: 0, deleted: false, createdIn: open.last)
                var h = RefHandle(code: c, balance: balance, version: 0, id: nextID, stored: true)
                if let scope = open.last {
                    h.insertScope = scope
                    h.insertAssignedKey = true
                }
                handles.append(h)
                nextID += 1
            }
            return [.ok]
        case .load(let codes, let balance):
            var seen = Set(rows.values.map(\.code))
            for c in codes where !seen.insert(c).inserted { return [.unique] }
            for c in codes {
                rows[nextID] = RefRow(code: c, balance: balance, version: 0, deleted: false, createdIn: open.last)
                nextID += 1
            }
            return [.ok]
        case .bulkInsert(let prefix, let count, let duplicate):
            let codes = (0..<count).map { "\(prefix)\($0)" } + (duplicate.map { [$0] } ?? [])
            var seen = Set(rows.values.map(\.code))
            for c in codes where !seen.insert(c).inserted { return [.unique] }
            for c in codes {
                rows[nextID] = RefRow(code: c, balance: 0, version: 0, deleted: false, createdIn: open.last)
                nextID += 1
            }
            return [.ok]
        case .upsert(let code, let balance):
            let id: Int
            if let found = row(code: code), var r = rows[found] {
                r.balance = balance
                r.deleted = false
                r.version &+= 1
                rows[found] = r
                id = found
            } else {
                rows[nextID] = RefRow(code: code, balance: balance, version: 0, deleted: false, createdIn: open.last)
                id = nextID
                nextID += 1
            }
            // The model takes the row's id, keeps the version it was built with, and is not marked stored; inside a
            // transaction it remembers the upsert as an insert that gave it its id (Model.upsertAll).
            var h = RefHandle(code: code, balance: balance, version: 0, id: id, stored: false)
            h.insertScope = open.last
            h.insertAssignedKey = true
            handles.append(h)
            return [.ok]
        case .upsertAll(let codes, let balance, let keep):
            if !keep, Set(codes).count < codes.count { return [.invalid] }
            for code in codes {
                if let id = row(code: code), var r = rows[id] {
                    if keep { continue }
                    r.balance = balance
                    r.deleted = false
                    r.version &+= 1
                    rows[id] = r
                } else {
                    rows[nextID] = RefRow(
                        code: code, balance: balance, version: 0, deleted: false, createdIn: open.last)
                    nextID += 1
                }
            }
            return [.ok]
        case .updateWhere(let atLeast, let value):
            if aborted { return [.misuse] }
            for (id, r) in rows where !r.deleted && r.balance >= atLeast { rows[id]?.balance = value }
            return [.ok]
        case .deleteWhere(let below):
            if aborted { return [.misuse] }
            for (id, r) in rows where !r.deleted && r.balance < below { rows[id]?.deleted = true }
            return [.ok]
        case .transaction(let steps, let end):
            var outcomes = scoped(steps, rollback: end == .rollback || end == .fail)
            if end == .fail { outcomes.append(.aborted) }
            return outcomes
        case .savepoint(let steps, let rollback):
            if aborted { return [.misuse] }  // its SAVEPOINT is refused
            return scoped(steps, rollback: rollback)
        case .abortingTransaction(let steps, let end):
            aborting = true
            var outcomes = scoped(steps, rollback: end == .rollback || end == .fail)
            aborting = false
            if end == .fail { outcomes.append(.aborted) }
            return outcomes
        case .rawTransaction(let steps, let end):
            var outcomes = scoped(steps, rollback: end != .commit)
            if end == .fail { outcomes.append(.aborted) }
            if end == .leaveOpen { outcomes.append(.misuse) }
            return outcomes
        case .rawMisuse:
            return [.misuse]
        case .retried(let steps, let failures):
            var outcomes: [WriteOutcome] = []
            for _ in 0..<min(failures, 3) { outcomes += scoped(steps, rollback: true) }
            if failures >= 3 {
                outcomes.append(.serialization)
            } else {
                outcomes += scoped(steps, rollback: false)
            }
            return outcomes
        case .cancelledSave(let i, let by):
            handles[i].balance &+= by
            handles[i].dirty = true
            return [.cancelled]
        case .connectionLost(let steps):
            return scoped(steps, rollback: true) + [.connectionLost]
        case .noteSave, .noteUpsert, .noteEdit, .noteDelete, .noteInsertAll, .noteUpdateWhere, .noteDeleteWhere,
            .noteFind, .readHistory, .pruneHistory:
            if aborted { return [.misuse] }  // every note step runs a statement first
            return applyNote(step)
        case .lineSave, .lineUpsert, .lineEdit, .lineRekey, .lineDelete, .lineMark, .lineFindMarked, .lineResetUnmarked:
            if aborted { return [.misuse] }  // every line step runs a statement first
            return applyLine(step)
        case .rotateKey:
            rotations += 1
            return [.ok]
        case .busySave(let i, let by):
            // The save's own checks first (stale, willSave), then a write that waits for the lock: busy.
            var h = handles[i]
            h.balance &+= by
            h.dirty = true
            busyWrites = true
            let outcome = save(&h)
            busyWrites = false
            handles[i] = h
            return [outcome]
        }
    }

    /// Runs `steps` in a new transaction or savepoint, then ends it.
    private mutating func scoped(_ steps: [WriteStep], rollback: Bool) -> [WriteOutcome] {
        let scope = nextScope
        nextScope += 1
        if let outer = open.last { parent[scope] = outer }
        open.append(scope)
        let saved = (rows, entries, nextID)
        let savedNotes = (notes, pendingChanges.count)
        let savedLines = (lines, marks)
        var outcomes: [WriteOutcome] = []
        for s in steps { outcomes += apply(s) }
        open.removeLast()
        var rollback = rollback
        if aborted {
            // A failure aborted this scope: it rolls back, and a closure that returned throws.
            aborted = false
            if !rollback {
                rollback = true
                outcomes.append(.misuse)
            }
        }
        if rollback {
            status[scope] = 1
            // nextID stays: PostgreSQL's sequences never give an id back (the reference's ids are its own anyway).
            (rows, entries) = (saved.0, saved.1)
            notes = savedNotes.0
            pendingChanges.removeSubrange(savedNotes.1...)
            (lines, marks) = savedLines
        } else if open.isEmpty {
            status[scope] = 2
        }
        if open.isEmpty {
            if !pendingChanges.isEmpty { committed.append(pendingChanges) }
            pendingChanges = []
        }
        return outcomes
    }

    /// Records the changes of one statement: a transaction of their own outside any, else part of the open one.
    private mutating func record(_ lines: [HistoryLine]) {
        guard !lines.isEmpty else { return }
        if open.isEmpty { committed.append(lines) } else { pendingChanges += lines }
    }

    /// The note's columns: what an insert sets.
    static let noteColumns = ["id", "n", "tag", "secret"]

    /// A step on the note or the history.
    private mutating func applyNote(_ step: WriteStep) -> [WriteOutcome] {
        switch step {
        case .noteSave(let key, let n, let tag, let secret):
            // An unread model with a key: every column updated where the row exists, else an insert with the key.
            let exists = notes[key] != nil
            notes[key] = RefNote(n: n, tag: tag, secret: secret, key: newestKey)
            record([
                HistoryLine(
                    key: key, operation: exists ? "update" : "insert",
                    columns: exists ? ["n", "tag", "secret"] : Self.noteColumns)
            ])
        case .noteUpsert(let key, let n, let tag, let secret, let keep):
            // DO NOTHING keeps a stored row (and returns, so records, inserted rows only); DO UPDATE writes every
            // column but the key, and is recorded as an upsert (inserted or updated).
            if keep, notes[key] != nil { return [.ok] }
            notes[key] = RefNote(n: n, tag: tag, secret: secret, key: newestKey)
            record([HistoryLine(key: key, operation: keep ? "insert" : "upsert", columns: Self.noteColumns)])
        case .noteEdit(let key, let by, let retag):
            guard var note = notes[key] else { return [.ok] }
            note.n &+= by
            if let retag { (note.tag, note.tagKey) = (retag, newestKey) }
            notes[key] = note
            record([HistoryLine(key: key, operation: "update", columns: retag == nil ? ["n"] : ["n", "tag"])])
        case .noteDelete(let key):
            guard notes[key] != nil else { return [.ok] }
            notes[key] = nil
            record([HistoryLine(key: key, operation: "delete", columns: [])])
        case .noteInsertAll(let keys, let tag, _):
            if Set(keys).count < keys.count || keys.contains(where: { notes[$0] != nil }) {
                if aborting { aborted = true }  // a failed statement
                return [.unique]
            }
            for key in keys { notes[key] = RefNote(n: 0, tag: tag, secret: "s-\(key)", key: newestKey) }
            record(keys.map { HistoryLine(key: $0, operation: "insert", columns: Self.noteColumns) })
        case .noteUpdateWhere(let tag, let n, let retag):
            let keys = notes.filter { $0.value.tag == tag }.keys.sorted()
            for key in keys {
                if let retag {
                    let sealer = newestKey
                    notes[key]?.tag = retag
                    notes[key]?.tagKey = sealer
                } else {
                    notes[key]?.n = n
                }
            }
            record(keys.map { HistoryLine(key: $0, operation: "update", columns: [retag == nil ? "n" : "tag"]) })
        case .noteDeleteWhere(let tag):
            let keys = notes.filter { $0.value.tag == tag }.keys.sorted()
            for key in keys { notes[key] = nil }
            record(keys.map { HistoryLine(key: $0, operation: "delete", columns: []) })
        case .noteFind(let tag):
            let found = notes.filter { $0.value.tag == tag }.sorted { $0.key < $1.key }
            let shown = found.map { WriteSnapshot.note(key: $0.key, n: $0.value.n, tag: tag, secret: $0.value.secret) }
            return [.found(shown.joined(separator: ", "))]
        case .readHistory(let limit):
            let unread = Array(committed[readCount...])
            readCount = committed.count
            return [.found(HistoryText.pages(unread, limit: limit))]
        case .pruneHistory(let keep):
            let cut = readCount - 1 - keep
            let deleted = cut > prunedBelow ? committed[prunedBelow..<cut].reduce(0) { $0 + $1.count } : 0
            prunedBelow = max(prunedBelow, cut)
            let kept = HistoryText.pages(Array(committed[prunedBelow...]), limit: 1000)
            return [.found("pruned \(deleted); kept " + kept)]
        default: return [.other("not a note step")]
        }
        return [.ok]
    }

    /// A step on the order line (composite key): none fails but a rekey, which is refused before any write, and a
    /// mark of no line, which its two-column foreign key refuses.
    private mutating func applyLine(_ step: WriteStep) -> [WriteOutcome] {
        switch step {
        case .lineSave(let order, let sku, let qty):
            lines[LineKey(order: order, sku: sku)] = qty
        case .lineUpsert(let order, let sku, let qty, let keep):
            let key = LineKey(order: order, sku: sku)
            if !keep || lines[key] == nil { lines[key] = qty }
        case .lineEdit(let order, let sku, let by):
            lines[LineKey(order: order, sku: sku)]? &+= by
        case .lineRekey(let order, let sku, _):
            // A stored model's key column assigned: refused, whatever the new value (even the same one).
            if lines[LineKey(order: order, sku: sku)] != nil { return [.invalid] }
        case .lineDelete(let order, let sku):
            lines[LineKey(order: order, sku: sku)] = nil
            marks[LineKey(order: order, sku: sku)] = nil  // destroy: the marks go first, each by its id
        case .lineMark(let order, let sku):
            let key = LineKey(order: order, sku: sku)
            guard lines[key] != nil else {
                if aborting { aborted = true }
                return [.foreignKey]  // the two-column foreign key: no line has both parts
            }
            marks[key, default: 0] += 1
        case .lineFindMarked(let marked):
            let found = lines.keys.filter { (marks[$0, default: 0] > 0) == marked }.map { "\($0.order)\($0.sku)" }
            return [.found(found.sorted().joined(separator: ", "))]
        case .lineResetUnmarked(let qty):
            for key in lines.keys where marks[key, default: 0] == 0 { lines[key] = qty }
        default: return [.other("not a line step")]
        }
        return [.ok]
    }

    /// `save` of a handle: the pipeline's rules, the model untouched when it throws.
    private mutating func save(_ handle: inout RefHandle) -> WriteOutcome {
        var h = handle
        // A rollback undid the model's last insert or update: forget it (Model.forgetUndoneWrites).
        if let s = h.insertScope, isUndone(s) {
            if !h.insertAssignedKey { return .stale }  // an Int64 id the model carried in may name another row
            h.id = nil
            h.stored = false
            h.insertScope = nil
            h.updateScope = nil
            h.insertAssignedKey = false
            h.readScope = nil
        } else if let r = h.readScope, isUndone(r) {
            return .stale
        } else if let u = h.updateScope, isUndone(u) {
            h.updateScope = nil
            h.dirtyAll = true
            h.version = h.versionBefore
        }
        let creating = h.id == nil || !h.stored
        let keyWasNil = h.id == nil
        let versionBefore = h.version
        if h.balance == WPAccount.refusedBeforeWrite { return .callback }
        let before = (rows, nextID)
        let writes = h.id == nil || !h.stored || h.dirty || h.dirtyAll
        let written = write(&h)
        guard written == .ok else {
            (rows, nextID) = before
            if written == .unique, aborting { aborted = true }  // a failed statement
            return written
        }
        if h.balance == WPAccount.refusedAfterWrite {
            (rows, nextID) = before
            if writes, aborting { aborted = true }  // the save threw after its row was written
            return .callback
        }
        if let scope = open.last {
            if creating {
                h.insertScope = scope
                h.insertAssignedKey = keyWasNil
            } else if h.updateScope != scope {
                h.updateScope = scope
                h.versionBefore = versionBefore
            }
        }
        handle = h
        return .ok
    }

    private mutating func write(_ h: inout RefHandle) -> WriteOutcome {
        if aborted, h.id == nil || !h.stored || h.dirty || h.dirtyAll { return .misuse }
        if busyWrites { return .busy }
        guard let id = h.id else {
            if row(code: h.code) != nil { return .unique }
            rows[nextID] = RefRow(
                code: h.code, balance: h.balance, version: h.version, deleted: false, createdIn: open.last)
            h.id = nextID
            nextID += 1
            return finishWrite(&h)
        }
        if !h.stored {
            // Built or decoded with an id: update at the version it carries, else stale, else insert with its id.
            if var r = rows[id] {
                guard r.version == h.version else { return .stale }
                if let other = row(code: h.code), other != id { return .unique }
                (r.code, r.balance, r.deleted) = (h.code, h.balance, false)
                r.version &+= 1
                h.version &+= 1
                rows[id] = r
                return finishWrite(&h)
            }
            if row(code: h.code) != nil { return .unique }
            rows[id] = RefRow(
                code: h.code, balance: h.balance, version: h.version, deleted: false, createdIn: open.last)
            return finishWrite(&h)
        }
        guard h.dirty || h.dirtyAll else { return .ok }
        guard var r = rows[id], r.version == h.version else { return .stale }
        r.balance = h.balance
        if h.dirtyAll { (r.code, r.deleted) = (h.code, false) }
        r.version &+= 1
        h.version &+= 1
        rows[id] = r
        return finishWrite(&h)
    }

    private func finishWrite(_ h: inout RefHandle) -> WriteOutcome {
        h.stored = true
        h.dirty = false
        h.dirtyAll = false
        return .ok
    }

    /// What a backend should show now.
    var snapshot: WriteSnapshot {
        WriteSnapshot(
            rows: rows.values.map { "\($0.code) \($0.balance) v\($0.version)\($0.deleted ? " deleted" : "")" }.sorted(),
            entries: entries.map { "\(rows[$0.account]?.code ?? "?"):\($0.amount):\($0.amount &* 2)" }.sorted(),
            handles: handles.map { "\($0.code) \($0.balance) v\($0.version) \($0.id == nil ? "nil" : "id")" },
            notes: notes.sorted { $0.key < $1.key }.map {
                WriteSnapshot.note(key: $0.key, n: $0.value.n, tag: $0.value.tag, secret: $0.value.secret)
            },
            sealed: notes.sorted { $0.key < $1.key }.map {
                "\($0.key) \($0.value.tagKey) \($0.value.secretKey ?? "nil")"
            },
            lines: lines.map { "\($0.key.order) \($0.key.sku) \($0.value)" }.sorted(),
            marks: marks.flatMap { Array(repeating: "\($0.key.order) \($0.key.sku)", count: $0.value) }.sorted())
    }
}
