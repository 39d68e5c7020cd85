// ConstantConditionTests: a constant that is not a condition fails `p` and `NOT p` alike, rows or no rows to check.
import Foundation
import Strata
import StrataMemory
import Testing

@Model(table: "constant_condition_item")
private struct Item {
    var id: Int64?
    var name: String
    var count: Int64 = 0
    var seen: Date?
    var done: Bool?
}

@Suite struct ConstantConditionTests {
    /// Found by FuzzMemoryCondition: `(TRUE >= NOT date) AND id IN ()` returned no rows (the empty IN left no row to
    /// evaluate) while its negation failed on the first row; PostgreSQL refuses both when planning.
    @Test func aDateInAConditionsPlaceFailsWhateverTheIndexLeaves() async throws {
        let db = try Database.open("memory:", drivers: [.memory])
        try await db.migrate(Item.self)
        for name in ["a", "b", "c"] {
            var item = Item(name: name)
            try await item.save(on: db)
        }
        let notADate = SQLExpression(.not(.value(.date(Date(timeIntervalSince1970: 3)))))
        let p = SQLExpression.and([
            .compare(.greaterOrEqual, .value(.bool(true)), notADate), .inList(.column("id"), []),
        ])
        for condition in [p, .not(p), .isNull(p), notADate] {
            await #expect(throws: StrataError.self) {
                try await Item.query(on: db).where(Condition(condition)).all()
            }
            do {
                _ = try await Item.query(on: db).where(Condition(condition)).count()
                Issue.record("no error for \(condition)")
            } catch StrataError.typeMismatch(_, _, let detail) {
                #expect(detail == "a condition must be boolean, got date")
            }
        }
        #expect(try await Item.query(on: db).count() == 3, "nothing changed")
    }

    /// Found by FuzzMemoryCondition in CI: `NOT (count NOT LIKE '+') AND NULL = id AND id` returned no rows (the key
    /// lookup of NULL left no row to evaluate) while its negation failed on the first row, LIKE over an integer;
    /// PostgreSQL refuses `bigint ~~ text` when planning, and so does the core's check before any driver now.
    @Test func likeOverAnIntegerColumnFailsWhateverTheIndexLeaves() async throws {
        let db = try Database.open("memory:", drivers: [.memory])
        try await db.migrate(Item.self)
        for name in ["a", "b"] {
            var item = Item(name: name, count: 3)
            try await item.save(on: db)
        }
        let like = SQLExpression.like(.column("count"), "+", caseInsensitive: false, negated: true)
        let p = SQLExpression.and([.not(like), .compare(.equal, .value(.null), .column("id")), .column("id")])
        for condition in [p, .not(p), .isNull(p), like] {
            do {
                _ = try await Item.query(on: db).where(Condition(condition)).all()
                Issue.record("no error for \(condition)")
            } catch StrataError.typeMismatch(let table, let column, let detail) {
                // The core's type check refuses it before the memory driver (issue 25), naming the column.
                #expect(table == "constant_condition_item" && column == "count")
                #expect(detail.hasPrefix("LIKE needs a text column"), "\(detail)")
            }
        }
        #expect(try await Item.query(on: db).where(\.name, like: "a%").count() == 1, "LIKE over text still answers")
    }

    /// Found by FuzzMemoryCondition in CI: `id AND d AND id IN ()` returned no rows (the empty IN left no row to
    /// evaluate) while its negation failed on the first row with a date; PostgreSQL refuses a timestamp column in a
    /// condition's place when planning, and so does the memory driver now, naming the column. Bool and integer
    /// columns (non-zero is true, as in SQLite) still answer.
    @Test func aColumnThatHoldsNoConditionFailsWhateverTheIndexLeaves() async throws {
        let db = try Database.open("memory:", drivers: [.memory])
        try await db.migrate(Item.self)
        for (name, done) in [("a", true), ("b", false)] {
            var item = Item(name: name, count: 2, seen: Date(timeIntervalSince1970: 3), done: done)
            try await item.save(on: db)
        }
        for column in ["seen", "name"] {
            let p = SQLExpression.and([.column("id"), .column(column), .inList(.column("id"), [])])
            for condition in [p, .not(p), .isNull(p), .column(column), .concat(.column("name"), .value(.text("x")))] {
                do {
                    _ = try await Item.query(on: db).where(Condition(condition)).all()
                    Issue.record("no error for \(condition)")
                } catch StrataError.typeMismatch(let table, let named, let detail) {
                    if case .concat = condition.node {
                        #expect(detail == "a condition must be boolean, got text")
                    } else {
                        #expect(table == "constant_condition_item" && named == column)
                        #expect(detail.hasPrefix("a condition must be boolean, got a "), "\(detail)")
                    }
                }
            }
        }
        #expect(try await Item.query(on: db).where(Condition(.column("done"))).values(\.name) == ["a"])
        #expect(try await Item.query(on: db).where(Condition(.column("count"))).count() == 2)
        #expect(try await Item.query(on: db).count() == 2, "nothing changed")
    }
}
