// Cases+History: the change history records every write path in its transaction, in commit order, alike.
import Foundation
import Strata

/// A model whose writes are recorded in the change history.
@Model(table: "conf_hist_note")
struct ConfHistNote: Equatable {
    var id: Int64?
    var title: String
    var rank: Int = 0
    static let tracksHistory = true
    static var indexes: [Index] { [.on(\ConfHistNote.title, unique: true)] }
}

enum HistoryWorld {
    static func reset(_ db: Database) async throws {
        try await db.migrate(ConfHistNote.self, ConfGroup.self)
    }

    /// Every change kept, as `operation:key:columns` strings, and the page.
    static func all(_ db: Database) async throws -> (lines: [String], page: HistoryPage) {
        let page = try await db.changes(since: nil)
        return (page.changes.map(line), page)
    }

    static func line(_ c: HistoryChange) -> String {
        "\(c.operation.rawValue):\(c.key):\(c.columns.sorted().joined(separator: ","))"
    }

    static func isBadArgument(_ name: String) -> (StrataError) -> Bool {
        { e in
            if case .invalidArgument(name, _) = e { return true }
            return false
        }
    }
}

extension ConformanceSuite {
    static let historyCases: [ConformanceCase] = [
        ConformanceCase("history.records-save-update-and-delete-in-commit-order") { db in
            try await HistoryWorld.reset(db)
            var a = ConfHistNote(title: "a", rank: 1)
            try await a.save(on: db)
            a.title = "a2"
            try await a.save(on: db)
            _ = try await a.delete(on: db)
            var g = ConfGroup(title: "untracked")
            try await g.save(on: db)
            let (lines, page) = try await HistoryWorld.all(db)
            let k = a.id ?? -1
            try checkEqual(lines, ["insert:\(k):rank,title", "update:\(k):title", "delete:\(k):"], "three changes")
            let tokens = page.changes.map(\.token)
            try check(
                tokens == tokens.sorted() && Set(tokens).count == 3, "one rising token per transaction: \(tokens)")
            try checkEqual(page.changes.map(\.table), Array(repeating: "conf_hist_note", count: 3), "table named")
            try checkEqual(page.next.value, tokens.last ?? -1, "next is the last token")
            let again = try await db.changes(since: page.next)
            try checkEqual(again.changes.count, 0, "nothing after next")
            try checkEqual(again.next, page.next, "next stays put when nothing is new")
            try checkEqual(try await db.historyToken(), page.next, "the current position is the last token")
        },
        ConformanceCase("history.one-token-per-transaction") { db in
            try await HistoryWorld.reset(db)
            try await db.transaction { tx in
                var a = ConfHistNote(title: "a")
                var b = ConfHistNote(title: "b")
                try a.save(tx)
                try b.save(tx)
                a.rank = 5
                try a.save(tx)
            }
            var c = ConfHistNote(title: "c")
            try await c.save(on: db)
            let page = try await db.changes(since: nil)
            try checkEqual(page.changes.count, 4, "four changes")
            let tokens = page.changes.map(\.token)
            try check(tokens[0] == tokens[1] && tokens[1] == tokens[2], "one transaction, one token: \(tokens)")
            try check(tokens[3] > tokens[2], "a later transaction, a greater token: \(tokens)")
            try checkEqual(page.changes.map(\.operation), [.insert, .insert, .update, .insert], "in write order")
        },
        ConformanceCase("history.where-update-delete-upsert-insertAll-and-load") { db in
            try await HistoryWorld.reset(db)
            // Past PostgreSQL's COPY threshold (1,500), so the staged bulk path is covered too.
            var many = (0..<1_600).map { ConfHistNote(title: "n\($0)", rank: $0) }
            try await ConfHistNote.insertAll(&many, on: db)
            let ids = many.map { String($0.id ?? -1) }
            var page = try await db.changes(since: nil)
            try checkEqual(page.changes.map(\.key), ids, "insertAll: one insert per row, in input order")
            try check(Set(page.changes.map(\.token)).count == 1, "insertAll is one transaction")
            try checkEqual(page.changes.first?.operation, .insert, "insert")
            let updated = try await ConfHistNote.query(on: db).where(\.rank >= 1_590).set(\.rank, to: -1).update()
            try checkEqual(updated, 10, "ten rows updated")
            page = try await db.changes(since: page.next)
            try checkEqual(page.changes.map(\.key).sorted(), Array(ids[1_590...]).sorted(), "where-update: its keys")
            try checkEqual(Set(page.changes.map(HistoryWorld.line)).count, 10, "ten distinct changes")
            try check(page.changes.allSatisfy { $0.operation == .update && $0.columns == ["rank"] }, "update of rank")
            let deleted = try await ConfHistNote.query(on: db).where(\.rank < 5 && \.rank >= 0).delete()
            try checkEqual(deleted, 5, "five rows deleted")
            page = try await db.changes(since: page.next)
            try checkEqual(page.changes.map(\.key).sorted(), Array(ids[0..<5]).sorted(), "where-delete: its keys")
            try check(page.changes.allSatisfy { $0.operation == .delete }, "deletes")
            var up = ConfHistNote(title: "n10", rank: 77)
            try await up.upsert(on: db, onConflict: \.title)
            page = try await db.changes(since: page.next)
            try checkEqual(page.changes.map(HistoryWorld.line), ["upsert:\(ids[10]):rank,title"], "upsert")
            try await ConfHistNote.load([ConfHistNote(title: "L1"), ConfHistNote(title: "L2")], on: db)
            page = try await db.changes(since: page.next)
            let loaded = try await ConfHistNote.query(on: db).where(\.title ~~ "L%").order(\.title).all()
            try checkEqual(page.changes.map(\.key), loaded.map { String($0.id ?? -1) }, "load: both rows")
            try check(page.changes.allSatisfy { $0.operation == .insert }, "load inserts")
        },
        ConformanceCase("history.a-failed-or-rolled-back-write-leaves-no-change") { db in
            try await HistoryWorld.reset(db)
            var a = ConfHistNote(title: "a")
            try await a.save(on: db)
            let before = try await db.historyToken()
            var dup = ConfHistNote(title: "a")
            try await checkThrows("a duplicate title", { if case .uniqueViolation = $0 { true } else { false } }) {
                try await dup.save(on: db)
            }
            struct Boom: Error {}
            do {
                try await db.transaction { tx in
                    var b = ConfHistNote(title: "b")
                    try b.save(tx)
                    throw Boom()
                }
            } catch is Boom {}
            try await db.transaction { tx in
                try tx.savepoint { sp in
                    var c = ConfHistNote(title: "c")
                    try c.save(sp)
                    throw Rollback()
                }
                var d = ConfHistNote(title: "d")
                try d.save(tx)
            }
            let page = try await db.changes(since: before)
            let titles = try await ConfHistNote.query(on: db).order(\.title).all().map(\.title)
            try checkEqual(titles, ["a", "d"], "rows kept")
            try checkEqual(page.changes.count, 1, "only d's insert after a: \(page.changes.map(HistoryWorld.line))")
            try check(page.changes.first?.token == before.value + 1, "d's transaction took the next token")
            try checkEqual(page.changes.first?.operation, .insert, "an insert")
        },
        ConformanceCase("history.bad-tokens-are-typed-errors-and-lose-nothing") { db in
            try await HistoryWorld.reset(db)
            var a = ConfHistNote(title: "a")
            try await a.save(on: db)
            let now = try await db.historyToken()
            let foreign = HistoryToken(database: "another-database", value: 0)
            try await checkThrows("a token from another database", HistoryWorld.isBadArgument("since")) {
                try await db.changes(since: foreign)
            }
            let future = HistoryToken(database: now.database, value: now.value + 5)
            try await checkThrows("a token from the future", HistoryWorld.isBadArgument("since")) {
                try await db.changes(since: future)
            }
            try await checkThrows("pruning before another database's token", HistoryWorld.isBadArgument("before")) {
                try await db.pruneHistory(before: foreign)
            }
            try await checkThrows("pruning before the future", HistoryWorld.isBadArgument("before")) {
                try await db.pruneHistory(before: future)
            }
            try await checkThrows("a limit of 0", HistoryWorld.isBadArgument("limit")) {
                try await db.changes(since: nil, limit: 0)
            }
            try checkEqual(HistoryToken(now.description), now, "a token reads back from its description")
            try check(HistoryToken("no-colon") == nil && HistoryToken("x:-1") == nil, "malformed text is nil")
            let page = try await db.changes(since: nil)
            try checkEqual(page.changes.map(HistoryWorld.line), ["insert:\(a.id ?? -1):rank,title"], "nothing lost")
        },
        ConformanceCase("history.prune-trims-before-a-token") { db in
            try await HistoryWorld.reset(db)
            for t in ["a", "b", "c"] {
                var n = ConfHistNote(title: t)
                try await n.save(on: db)
            }
            let all = try await db.changes(since: nil)
            try checkEqual(all.changes.count, 3, "three changes")
            let second = HistoryToken(database: all.next.database, value: all.changes[1].token)
            let gone = try await db.pruneHistory(before: second)
            try checkEqual(gone, 1, "one change pruned")
            let left = try await db.changes(since: nil)
            try checkEqual(left.changes.map(\.token), Array(all.changes.map(\.token)[1...]), "the later two kept")
            try checkEqual(left.next, all.next, "the same next token")
        },
        ConformanceCase("history.pages-keep-transactions-whole") { db in
            try await HistoryWorld.reset(db)
            for t in 0..<3 {
                try await db.transaction { tx in
                    var x = ConfHistNote(title: "x\(t)")
                    var y = ConfHistNote(title: "y\(t)")
                    try x.save(tx)
                    try y.save(tx)
                }
            }
            var token: HistoryToken?
            var sizes: [Int] = []
            var more: [Bool] = []
            for _ in 0..<5 {
                let page = try await db.changes(since: token, limit: 1)
                if page.changes.isEmpty { break }
                sizes.append(page.changes.count)
                more.append(page.hasMore)
                try check(Set(page.changes.map(\.token)).count == 1, "one transaction per page")
                token = page.next
            }
            try checkEqual(sizes, [2, 2, 2], "three pages of two changes")
            try checkEqual(more, [true, true, false], "hasMore until the last page")
        },
        ConformanceCase("history.interleaved-writers-are-never-skipped") { db in
            // Transaction A takes its token first and holds it open; B starts meanwhile and commits after A. A
            // reader polling all along sees A's change before B's, each once, whatever the timing.
            try await HistoryWorld.reset(db)
            let many = try await Siblings.open(db, connections: 3)
            defer { many.close() }
            let holding = Signal()
            let release = DispatchSemaphore(value: 0)
            defer { release.signal() }  // A never outwaits a failed check
            let first = Siblings.onOwnThread {
                defer { holding.fire() }
                try await many.transaction { tx in
                    var a = ConfHistNote(title: "A")
                    try a.save(tx)
                    holding.fire()
                    // B's thread signals just before B begins; A commits 50 ms later, timed on this thread (no
                    // queue or task of a busy test run can hold it back past B's busy timeout).
                    if release.wait(timeout: .now() + 120) == .success { Thread.sleep(forTimeInterval: 0.05) }
                }
            }
            await holding.wait()
            // Read while A is open (it waits for `release`, up to 120 s): A's change is not listed yet.
            let early = try await many.changes(since: nil)
            try checkEqual(early.changes.count, 0, "nothing is listed before a commit")
            let second = Siblings.onOwnThread {
                // A commits 50 ms after B starts (B waits behind it meanwhile).
                release.signal()
                try await many.transaction { tx in
                    var b = ConfHistNote(title: "B")
                    try b.save(tx)
                }
            }
            var seen: [HistoryChange] = []
            var token: HistoryToken? = early.next
            for _ in 0..<400 where seen.count < 2 {
                let page = try await many.changes(since: token)
                seen += page.changes
                token = page.next
                if seen.count < 2 { try await Task.sleep(nanoseconds: 10_000_000) }
            }
            try await first.value
            try await second.value
            let page = try await many.changes(since: token)
            seen += page.changes
            let titles = try await ConfHistNote.query(on: db).order(\.id).all()
            try checkEqual(seen.map(\.key), titles.map { String($0.id ?? -1) }, "A then B, each once")
            try check(seen.count == 2 && seen[0].token < seen[1].token, "A's token below B's: \(seen.map(\.token))")
        },
    ]
}
