// Cases+Generated: stored generated columns computed by the database, read back, queried and refused as targets.
import Foundation
import Strata

/// A line item whose total and code the database computes.
@Model(table: "conf_line_item")
struct ConfLineItem: Equatable {
    var id: Int64?
    var sku: String
    var price: Int64
    var quantity: Int64
    @Generated var total: Int64 = 0
    @Generated var code: String = ""
    static var indexes: [Index] { [.on(\ConfLineItem.sku, unique: true)] }
    static var generatedColumns: [GeneratedColumn<ConfLineItem>] {
        [
            GeneratedColumn(\ConfLineItem.total, as: \ConfLineItem.price * \ConfLineItem.quantity),
            GeneratedColumn(\ConfLineItem.code, as: lower(\ConfLineItem.sku)),
        ]
    }
}

/// The same table before its generated columns were added.
@Model(table: "conf_line_item")
struct ConfLineItemV1 {
    var id: Int64?
    var sku: String
    var price: Int64
    var quantity: Int64
}

/// A `@Generated` column without an expression.
@Model(table: "conf_line_item")
struct ConfLineItemUndeclared {
    var id: Int64?
    var price: Int64
    @Generated var total: Int64 = 0
}

/// A generated column computed from another generated column.
@Model(table: "conf_line_item")
struct ConfLineItemChained {
    var id: Int64?
    var price: Int64
    @Generated var double: Int64 = 0
    @Generated var quadruple: Int64 = 0
    static var generatedColumns: [GeneratedColumn<ConfLineItemChained>] {
        [
            GeneratedColumn(\ConfLineItemChained.double, as: \ConfLineItemChained.price * 2),
            GeneratedColumn(\ConfLineItemChained.quadruple, as: \ConfLineItemChained.double * 2),
        ]
    }
}

/// A line item whose generated total its property's type cannot always hold: the row keeps 100 × 3, `Int8` cannot.
@Model(table: "conf_line_item_narrow")
struct ConfLineItemNarrow: Equatable {
    var id: Int64?
    var sku: String
    var price: Int8
    var quantity: Int8
    @Generated var total: Int8 = 0
    static var indexes: [Index] { [.on(\ConfLineItemNarrow.sku, unique: true)] }
    static var generatedColumns: [GeneratedColumn<ConfLineItemNarrow>] {
        [GeneratedColumn(\ConfLineItemNarrow.total, as: \ConfLineItemNarrow.price * \ConfLineItemNarrow.quantity)]
    }
}

enum GeneratedWorld {
    static func item(_ sku: String, _ price: Int64, _ quantity: Int64) -> ConfLineItem {
        ConfLineItem(sku: sku, price: price, quantity: quantity)
    }

    static func isGenerated(_ e: StrataError, model: String = "ConfLineItem", column: String) -> Bool {
        if case .generatedColumn(model: model, column: column, _) = e { return true }
        return false
    }

    static func isArithmetic(_ e: StrataError) -> Bool {
        if case .arithmeticError = e { return true }
        return false
    }
}

extension ConformanceSuite {
    static let generatedCases: [ConformanceCase] = [
        ConformanceCase("generated.computed-on-insert-and-read-back") { db in
            try await db.migrate(ConfLineItem.self)
            var one = GeneratedWorld.item("AB-1", 250, 4)
            try await one.save(on: db)
            try checkEqual(one.total, 1000, "save reads the computed total back")
            try checkEqual(one.code, "ab-1", "save reads the computed code back")
            try checkEqual(try await ConfLineItem.find(try unwrap(one.id), on: db), one, "the row holds it too")
            var many = [GeneratedWorld.item("CD-2", 3, 7), GeneratedWorld.item("EF-3", -5, 6)]
            try await ConfLineItem.insertAll(&many, on: db)
            try checkEqual(many.map(\.total), [21, -30], "insertAll reads each total back")
            var up = GeneratedWorld.item("AB-1", 10, 10)
            try await up.upsert(on: db, onConflict: \ConfLineItem.sku)
            try checkEqual(up.id, one.id, "the upsert updated the existing row")
            try checkEqual(up.total, 100, "upsert reads the recomputed total back")
            var given = GeneratedWorld.item("GH-4", 2, 2)
            given.total = 999  // a new model's generated value is never written
            try await given.save(on: db)
            try checkEqual(given.total, 4, "the database's value replaces what the new model held")
        },
        ConformanceCase("generated.recomputed-on-update") { db in
            try await db.migrate(ConfLineItem.self)
            var item = GeneratedWorld.item("Q-1", 250, 4)
            try await item.save(on: db)
            item.quantity = 5
            try await item.save(on: db)
            try checkEqual(item.total, 1250, "an update reads the recomputed total back")
            let n = try await ConfLineItem.query(on: db).where(\.sku == "Q-1").set(\.price, to: 100).update()
            try checkEqual(n, 1, "the bulk update matched the row")
            try checkEqual(
                try await ConfLineItem.find(try unwrap(item.id), on: db)?.total, 500, "bulk update recomputes")
            let m = try await ConfLineItem.query(on: db).where(\.sku == "Q-1").set(\.quantity, to: \.quantity + 1)
                .update()
            try checkEqual(m, 1, "the computed update matched the row")
            try checkEqual(try await ConfLineItem.find(try unwrap(item.id), on: db)?.total, 600, "from the new values")
        },
        ConformanceCase("generated.queryable-in-filter-order-and-select") { db in
            try await db.migrate(ConfLineItem.self)
            var items = [
                GeneratedWorld.item("A", 10, 1), GeneratedWorld.item("B", 3, 100), GeneratedWorld.item("C", 7, 7),
                GeneratedWorld.item("D", 1, 1),
            ]
            try await ConfLineItem.insertAll(&items, on: db)
            let big = try await ConfLineItem.query(on: db).where(\.total > 9).order(\.total, .descending).all()
            try checkEqual(big.map(\.sku), ["B", "C", "A"], "filtered and ordered by the generated total")
            try checkEqual(
                try await ConfLineItem.query(on: db).order(\.total).values(\.total), [1, 10, 49, 300],
                "selected as a column")
            try checkEqual(
                try await ConfLineItem.query(on: db).where(\.code == "c").values(\.sku), ["C"],
                "filtered by the generated text")
            try checkEqual(
                try await ConfLineItem.query(on: db).where(\.total == \.price * \.quantity).count(), 4,
                "the stored value equals its expression on every row")
        },
        ConformanceCase("generated.refused-as-a-write-target") { db in
            try await db.migrate(ConfLineItem.self)
            var item = GeneratedWorld.item("W-1", 2, 3)
            try await item.save(on: db)
            try await checkThrows(
                "update(set:) of a generated column", { GeneratedWorld.isGenerated($0, column: "total") }
            ) {
                try await ConfLineItem.query(on: db).where(\.sku == "W-1").set(\.total, to: 5).update()
            }
            try await checkThrows(
                "an upsert setting a generated column", { GeneratedWorld.isGenerated($0, column: "code") }
            ) {
                var other = GeneratedWorld.item("W-1", 9, 9)
                try await other.upsert(on: db, onConflict: \ConfLineItem.sku, do: .update(\ConfLineItem.code))
            }
            var edited = item
            edited.total = 77
            let before = edited
            try await checkThrows(
                "saving an assigned generated property", { GeneratedWorld.isGenerated($0, column: "total") }
            ) {
                try await edited.save(on: db)
            }
            try checkEqual(edited, before, "the refused save left the model as it was")
            try checkEqual(try await ConfLineItem.find(try unwrap(item.id), on: db), item, "and the row too")
        },
        ConformanceCase("generated.overflow-is-an-arithmetic-error-and-writes-nothing") { db in
            try await db.migrate(ConfLineItem.self)
            var huge = GeneratedWorld.item("O-1", Int64.max, 2)
            try await checkThrows("an insert whose total overflows", GeneratedWorld.isArithmetic) {
                try await huge.save(on: db)
            }
            try checkEqual(huge.id, nil, "the refused insert left the model new")
            try checkEqual(try await ConfLineItem.query(on: db).count(), 0, "and wrote no row")
            var item = GeneratedWorld.item("O-2", Int64.max / 2, 1)
            try await item.save(on: db)
            item.quantity = 3
            let before = item
            try await checkThrows("an update whose total overflows", GeneratedWorld.isArithmetic) {
                try await item.save(on: db)
            }
            try checkEqual(item, before, "the refused update left the model as it was")
            try checkEqual(
                try await ConfLineItem.find(try unwrap(item.id), on: db)?.quantity, 1, "and the row unchanged")
            try await checkThrows("a bulk update whose total overflows", GeneratedWorld.isArithmetic) {
                try await ConfLineItem.query(on: db).set(\.quantity, to: 3).update()
            }
            try checkEqual(
                try await ConfLineItem.find(try unwrap(item.id), on: db)?.quantity, 1, "no row changed")
        },
        ConformanceCase("generated.failed-read-back-writes-nothing") { db in
            // The row was inserted and its read-back failed: save, insertAll and upsert threw and left the row behind
            // (committed in autocommit, kept by a transaction that went on), so saving the model again wrote a second.
            try await db.migrate(ConfLineItemNarrow.self)
            let isDecoding: (StrataError) -> Bool = {
                if case .decodingFailed(model: "ConfLineItemNarrow", column: "total", _, _) = $0 { return true }
                return false
            }
            var fits = ConfLineItemNarrow(sku: "fits", price: 10, quantity: 3)
            try await fits.save(on: db)
            try checkEqual(fits.total, 30, "a total Int8 holds is read back")
            var wide = ConfLineItemNarrow(sku: "wide", price: 100, quantity: 3)
            let before = wide
            try await checkThrows("a save whose total (300) Int8 cannot hold", isDecoding) {
                try await wide.save(on: db)
            }
            try checkEqual(wide, before, "the failed save left the model as it was")
            try checkEqual(try await ConfLineItemNarrow.query(on: db).count(), 1, "and wrote no row")
            try await db.transaction { tx in
                var again = ConfLineItemNarrow(sku: "wide", price: 100, quantity: 3)
                do {
                    try again.save(tx)
                    throw ConformanceFailure(description: "a save of a total Int8 cannot hold succeeded")
                } catch let error as StrataError where isDecoding(error) {}
                try checkEqual(again.id, nil, "in a transaction too, the model stays new")
                var next = ConfLineItemNarrow(sku: "next", price: 1, quantity: 1)
                try next.save(tx)
            }
            try checkEqual(
                try await ConfLineItemNarrow.query(on: db).order(\.sku).all().map(\.sku), ["fits", "next"],
                "the transaction kept the rows of the saves that succeeded, not the failed one's")
            var batch = [ConfLineItemNarrow(sku: "b1", price: 2, quantity: 2), before]
            let beforeBatch = batch
            try await checkThrows("an insertAll with a total Int8 cannot hold", isDecoding) {
                try await ConfLineItemNarrow.insertAll(&batch, on: db)
            }
            try checkEqual(batch, beforeBatch, "the failed insertAll left every model as it was")
            var upserted = before
            try await checkThrows("an upsert with a total Int8 cannot hold", isDecoding) {
                try await upserted.upsert(on: db, onConflict: \ConfLineItemNarrow.sku)
            }
            try checkEqual(upserted, before, "the failed upsert left the model as it was")
            try checkEqual(try await ConfLineItemNarrow.query(on: db).count(), 2, "neither wrote a row")
        },
        ConformanceCase("generated.migration-plan-sees-no-change") { db in
            try await db.migrate(ConfLineItem.self)
            try await db.migrate(ConfLineItem.self)  // a second automatic migration adds nothing
            let plan = try await db.withConnection { tx in try tx.plan([ConfLineItem.self]) }
            try checkEqual(plan.changes.map(\.description), [], "the live table is the model's")
            let live = try await db.withConnection { tx in try tx.introspect() }
            let columns = try unwrap(live[table: "conf_line_item"]).columns
            try checkEqual(
                columns.filter(\.isGenerated).map(\.name), ["total", "code"],
                "introspection marks the generated columns")
        },
        ConformanceCase("generated.added-by-a-migration-step-computes-existing-rows") { db in
            try await db.migrate(ConfLineItemV1.self)
            var old = [
                ConfLineItemV1(sku: "M-1", price: 4, quantity: 5), ConfLineItemV1(sku: "M-2", price: 6, quantity: 7),
            ]
            try await ConfLineItemV1.insertAll(&old, on: db)
            let total = TableColumn(name: "total", type: .integer, isNullable: false)
                .generated(as: try (\ConfLineItem.price * \ConfLineItem.quantity).expression)
            let code = TableColumn(name: "code", type: .text, isNullable: false)
                .generated(as: try lower(\ConfLineItem.sku).expression)
            let step = Migration("001_generated_totals") { up in
                up.change(.addColumn(table: "conf_line_item", total))
                up.change(.addColumn(table: "conf_line_item", code))
            }
            _ = try await db.migrate([step])
            let read = try await ConfLineItem.query(on: db).order(\.sku).all()
            try checkEqual(read.map(\.total), [20, 42], "existing rows got their computed totals")
            try checkEqual(read.map(\.code), ["m-1", "m-2"], "and codes")
            var next = GeneratedWorld.item("M-3", 3, 3)
            try await next.save(on: db)
            try checkEqual(next.total, 9, "a new row is computed too")
        },
        ConformanceCase("generated.declaration-errors-name-the-column") { db in
            try await checkThrows(
                "a @Generated column without an expression",
                { GeneratedWorld.isGenerated($0, model: "ConfLineItemUndeclared", column: "total") }
            ) { try await db.migrate(ConfLineItemUndeclared.self) }
            try await checkThrows(
                "an expression over another generated column",
                { GeneratedWorld.isGenerated($0, model: "ConfLineItemChained", column: "quadruple") }
            ) { try await db.migrate(ConfLineItemChained.self) }
            try checkEqual(
                try await db.withConnection { tx in try tx.columns(of: "conf_line_item") }, nil,
                "no table was created")
        },
    ]
}
