// Cases+CompositeKey: models whose primary key has two or three columns: find, save, delete, migrate twice.
import Foundation
import Strata

/// An order line keyed by its order and product (two integer columns).
@Model(table: "conf_order_line", primaryKey: ["orderID", "productID"])
struct ConfOrderLine {
    var orderID: Int64
    var productID: Int64
    var quantity: Int
    var note: String?
}

/// A three-column key mixing text and integers, with timestamps.
@Model(table: "conf_price", primaryKey: ["region", "sku", "year"])
struct ConfPrice {
    var region: String
    var sku: String
    var year: Int64
    var cents: Int64
    @CreatedAt var createdAt: Date?
    @UpdatedAt var updatedAt: Date?
    static func validations(_ v: inout Validations<ConfPrice>) { v.uniqueness(\.cents) }
}

/// A join table: nothing but its two key columns.
@Model(table: "conf_group_member", primaryKey: ["groupID", "userID"])
struct ConfGroupMember {
    var groupID: Int64
    var userID: String
}

/// A cart whose items have a composite key that starts with the cart's id.
@Model(table: "conf_cart")
struct ConfCart {
    var id: Int64?
    var owner: String
    static let items = hasMany(ConfCartItem.self, key: \.cartID, onDelete: .destroy)
}

/// An item of a cart, keyed by the cart and the SKU; a child of a single-key parent.
@Model(table: "conf_cart_item", primaryKey: ["cartID", "sku"])
struct ConfCartItem {
    var cartID: Int64
    var sku: String
    var count: Int
    @CreatedAt var createdAt: Date?
    @UpdatedAt var updatedAt: Date?
    static let cart = belongsTo(ConfCart.self, key: \.cartID)
}

/// A team whose players are reached through a join model keyed by both sides (the classic composite key).
@Model(table: "conf_squad")
struct ConfSquad {
    var id: Int64?
    var name: String
    static let players = hasMany(
        ConfAthlete.self, through: ConfSquadSeat.self, ownerKey: \ConfSquadSeat.teamID,
        targetKey: \ConfSquadSeat.playerID)
}

/// A player of teams.
@Model(table: "conf_athlete")
struct ConfAthlete {
    var id: Int64?
    var name: String
}

/// The join model of teams and players: its key is the pair.
@Model(table: "conf_squad_seat", primaryKey: ["teamID", "playerID"])
struct ConfSquadSeat {
    var teamID: Int64
    var playerID: Int64
    static let team = belongsTo(ConfSquad.self, key: \.teamID)
    static let player = belongsTo(ConfAthlete.self, key: \.playerID)
}

/// A note that points at an order line by one of its key columns: an association to a composite key, refused.
@Model(table: "conf_line_note")
struct ConfLineNote {
    var id: Int64?
    var orderID: Int64
    var text: String
    static let line = belongsTo(ConfOrderLine.self, key: \.orderID)
}

extension StrataError {
    /// The reason of an `invalidArgument`, so a check can match the case but not the wording.
    var argumentReason: String {
        if case .invalidArgument(_, let reason) = self { return reason }
        return ""
    }

    /// The reason of an `invalidAggregate`, for the same purpose.
    var aggregateReason: String {
        if case .invalidAggregate(_, _, let reason) = self { return reason }
        return ""
    }
}

extension ConformanceSuite {
    static func migrateCompositeWorld(_ db: Database) async throws {
        try await db.migrate(ConfOrderLine.self, ConfPrice.self, ConfGroupMember.self)
    }

    static let compositeKeyCases: [ConformanceCase] = [
        ConformanceCase("composite-key.find-save-delete") { db in
            try await migrateCompositeWorld(db)
            var line = ConfOrderLine(orderID: 7, productID: 3, quantity: 2)
            try await line.save(on: db)
            var other = ConfOrderLine(orderID: 7, productID: 4, quantity: 5)
            try await other.save(on: db)
            var third = ConfOrderLine(orderID: 8, productID: 3, quantity: 1)
            try await third.save(on: db)
            try checkEqual(try await ConfOrderLine.query(on: db).count(), 3, "three rows sharing key parts")
            let key = ConfOrderLine.ID(orderID: 7, productID: 3)
            try checkEqual(line.id, key, "the id is the key's properties")
            try checkEqual(try await ConfOrderLine.find(key, on: db)?.quantity, 2, "found by both columns")
            try checkEqual(
                try await ConfOrderLine.query(on: db).filter(id: key).exists(), true, "exists by both columns")
            try checkEqual(
                try await ConfOrderLine.query(on: db).filter(id: ConfOrderLine.ID(orderID: 8, productID: 4)).exists(),
                false, "no row has both parts of a key whose parts exist apart")
            try checkEqual(
                try await ConfOrderLine.find(ConfOrderLine.ID(orderID: 3, productID: 7), on: db)?.quantity, nil,
                "the key's parts are not interchangeable")
            line.quantity = 9
            try await line.save(on: db)
            try checkEqual(try await ConfOrderLine.find(key, on: db)?.quantity, 9, "the update reached its row")
            try checkEqual(
                try await ConfOrderLine.find(ConfOrderLine.ID(orderID: 7, productID: 4), on: db)?.quantity, 5,
                "a row sharing the order is untouched")
            try checkEqual(
                try await ConfOrderLine.find(ConfOrderLine.ID(orderID: 8, productID: 3), on: db)?.quantity, 1,
                "a row sharing the product is untouched")
            var rebuilt = ConfOrderLine(orderID: 7, productID: 3, quantity: 4, note: "again")
            try await rebuilt.save(on: db)
            try checkEqual(try await ConfOrderLine.query(on: db).count(), 3, "a model built with a stored key updates")
            try checkEqual(try await ConfOrderLine.find(key, on: db)?.note, "again", "every column written")
            try await rebuilt.reload(on: db)
            try checkEqual(rebuilt.quantity, 4, "reload by the key")
            try checkEqual(try await rebuilt.delete(on: db), true, "delete by the key")
            try checkEqual(try await ConfOrderLine.find(key, on: db)?.quantity, nil, "the row is gone")
            try checkEqual(
                try await ConfOrderLine.query(on: db).order(\.orderID).order(\.productID).all().map(\.quantity),
                [5, 1], "the rows sharing a part stay")
            try checkEqual(try await rebuilt.delete(on: db), false, "a second delete deletes nothing")
        },
        ConformanceCase("composite-key.keyset-pages-end-in-every-key-column") { db in
            try await migrateCompositeWorld(db)
            for (order, product) in [(1, 1), (1, 2), (2, 1), (2, 2), (3, 1)] as [(Int64, Int64)] {
                var line = ConfOrderLine(orderID: order, productID: product, quantity: 1)
                try await line.save(on: db)
            }
            let query = ConfOrderLine.query(on: db).order(\.orderID, .descending).order(\.productID)
            var seen: [String] = []
            var cursor: PageCursor?
            for _ in 0..<5 {
                let page = try await query.page(after: cursor, limit: 2)
                seen += page.items.map { "\($0.orderID).\($0.productID)" }
                cursor = page.nextCursor
                if cursor == nil { break }
            }
            try checkEqual(seen, ["3.1", "2.1", "2.2", "1.1", "1.2"], "pages ordered by both key columns")
            try await checkThrows(
                "an order ending in one key column of two",
                {
                    $0 == .invalidArgument("order", reason: $0.argumentReason)
                        && $0.argumentReason.contains("product_id")
                }
            ) { _ = try await ConfOrderLine.query(on: db).order(\.orderID).page(after: nil, limit: 2) }
        },
        ConformanceCase("composite-key.key-column-cannot-change") { db in
            try await migrateCompositeWorld(db)
            var line = ConfOrderLine(orderID: 1, productID: 1, quantity: 1)
            try await line.save(on: db)
            line.productID = 2
            line.quantity = 6
            try await checkThrows(
                "a stored model's key column assigned",
                { $0 == .invalidValue(table: "conf_order_line", column: "product_id", reason: $0.reasonText) }
            ) { try await line.save(on: db) }
            try checkEqual(line.productID, 2, "the model keeps what the caller assigned")
            try checkEqual(line.quantity, 6, "and its other columns")
            let rows = try await ConfOrderLine.query(on: db).all()
            try checkEqual(rows.map(\.productID), [1], "the row kept its key")
            try checkEqual(rows.map(\.quantity), [1], "and its other columns")
            var moved = ConfOrderLine(orderID: 1, productID: 2, quantity: 6)
            try await moved.save(on: db)
            try await line.reload(on: db)
            try checkEqual(line.quantity, 6, "a new model with the new key inserts its row")
            try checkEqual(try await ConfOrderLine.query(on: db).count(), 2, "beside the old one")
        },
        ConformanceCase("composite-key.three-columns-text-and-stamps") { db in
            try await migrateCompositeWorld(db)
            var eu = ConfPrice(region: "eu", sku: "A-1", year: 2025, cents: 100)
            try await eu.save(on: db)
            var us = ConfPrice(region: "us", sku: "A-1", year: 2025, cents: 120)
            try await us.save(on: db)
            var next = ConfPrice(region: "eu", sku: "A-1", year: 2026, cents: 110)
            try await next.save(on: db)
            try check(eu.createdAt != nil && eu.updatedAt != nil, "an insert stamps both times")
            let created = eu.createdAt
            eu.cents = 105
            try await eu.save(on: db)
            try checkEqual(eu.createdAt, created, "an update keeps the creation time")
            let key = ConfPrice.ID(region: "eu", sku: "A-1", year: 2025)
            try checkEqual(try await ConfPrice.find(key, on: db)?.cents, 105, "found by three columns")
            try checkEqual(
                try await ConfPrice.find(ConfPrice.ID(region: "EU", sku: "A-1", year: 2025), on: db)?.cents, nil,
                "text key parts compare exactly")
            try checkEqual(
                try await ConfPrice.query(on: db).order(\.region).order(\.year).all().map(\.cents), [105, 110, 120],
                "each row kept its own values")
            try checkEqual("\(key)", "(region: eu, sku: A-1, year: 2025)", "the key describes its columns")
            var clash = ConfPrice(region: "us", sku: "B-2", year: 2025, cents: 110)
            try await checkThrows(
                "a uniqueness validation meeting another row",
                {
                    if case .validationFailed = $0 { return true }
                    return false
                }
            ) { try await clash.save(on: db) }
            try checkEqual(clash.createdAt, nil, "the refused model is unchanged")
            try checkEqual(try await ConfPrice.query(on: db).count(), 3, "nothing written")
            eu.cents = 105
            try await eu.save(on: db)  // its own row is not another row with the same value
        },
        ConformanceCase("composite-key.join-table-of-keys-only") { db in
            try await migrateCompositeWorld(db)
            var m = ConfGroupMember(groupID: 1, userID: "ann")
            try await m.save(on: db)
            var again = ConfGroupMember(groupID: 1, userID: "ann")
            try await again.save(on: db)
            var bob = ConfGroupMember(groupID: 1, userID: "bob")
            try await bob.save(on: db)
            try checkEqual(try await ConfGroupMember.query(on: db).count(), 2, "saving a stored key again adds no row")
            try checkEqual(
                try await ConfGroupMember.query(on: db).where(\.groupID == 1).order(\.userID).all().map(\.userID),
                ["ann", "bob"], "queried by one key column")
            try await again.delete(on: db)
            try checkEqual(
                try await ConfGroupMember.query(on: db).all().map(\.userID), ["bob"], "delete by both columns")
            var many = [ConfGroupMember(groupID: 2, userID: "ann"), ConfGroupMember(groupID: 2, userID: "cy")]
            try await ConfGroupMember.insertAll(&many, on: db)
            try await db.withConnection { tx in
                try ConfGroupMember.load([ConfGroupMember(groupID: 3, userID: "ann")], tx)
            }
            try checkEqual(try await ConfGroupMember.query(on: db).count(), 4, "insertAll and load write their keys")
            var repeated = [ConfGroupMember(groupID: 4, userID: "dee"), ConfGroupMember(groupID: 2, userID: "cy")]
            try await checkThrows(
                "insertAll of a stored key",
                {
                    if case .uniqueViolation(let table, _) = $0 { return table == nil || table == "conf_group_member" }
                    return false
                }
            ) { try await ConfGroupMember.insertAll(&repeated, on: db) }
            try checkEqual(try await ConfGroupMember.query(on: db).count(), 4, "the failed insertAll wrote nothing")
            try await checkThrows(
                "a count of distinct rows, which counts one key column",
                {
                    $0
                        == .invalidAggregate(
                            model: "ConfGroupMember", column: "group_id, user_id", reason: $0.aggregateReason)
                }
            ) { _ = try await ConfGroupMember.query(on: db).distinct().count() }
        },
        ConformanceCase("composite-key.migrate-twice-plans-nothing") { db in
            try await migrateCompositeWorld(db)
            let live = try await db.withConnection { tx in try tx.introspect() }
            let line = live[table: "conf_order_line"]
            try checkEqual(
                line?.columns.map(\.isPrimaryKey), [true, true, false, false], "both key columns read back as the key")
            try checkEqual(line?.columns.map(\.isNullable), [false, false, false, true], "key columns are NOT NULL")
            try checkEqual(
                live[table: "conf_price"]?.columns.filter(\.isPrimaryKey).map(\.name), ["region", "sku", "year"],
                "a three-column key read back")
            let plan = try await db.withConnection { tx in
                try tx.plan([ConfOrderLine.self, ConfPrice.self, ConfGroupMember.self])
            }
            try checkEqual(plan.changes.map { "\($0.change)" }, [], "a second migration plans no change")
            try await migrateCompositeWorld(db)
            var line2 = ConfOrderLine(orderID: 2, productID: 2, quantity: 2)
            try await line2.save(on: db)
            try checkEqual(try await ConfOrderLine.query(on: db).count(), 1, "the table still works")
        },
        ConformanceCase("composite-key.altering-a-column-keeps-the-key") { db in
            try await migrateCompositeWorld(db)
            for (product, note) in [(1, nil), (2, "b")] as [(Int64, String?)] {
                var line = ConfOrderLine(orderID: 5, productID: product, quantity: 1, note: note)
                try await line.save(on: db)
            }
            // SQLite rebuilds the table for this change, from the table it reads back: the key must survive.
            try await db.migrate([
                Migration("ck1") { up in
                    up.alterColumn("note", in: "conf_order_line", to: .text, nullable: false, fill: .text("-"))
                    up.renameColumn("quantity", to: "qty", in: "conf_order_line")
                }
            ])
            let live = try await db.withConnection { tx in try tx.introspect() }[table: "conf_order_line"]
            try checkEqual(
                live?.columns.filter(\.isPrimaryKey).map(\.name), ["order_id", "product_id"], "the key after the change"
            )
            try checkEqual(live?.column(named: "note")?.isNullable, false, "the change applied")
            try await checkThrows(
                "a second row with a stored key",
                {
                    if case .uniqueViolation = $0 { return true }
                    return false
                }
            ) {
                try await db.withConnection { tx in
                    _ = try tx.execute(
                        .insert(
                            Insert(
                                table: "conf_order_line", columns: ["order_id", "product_id", "qty", "note"],
                                rows: [[.integer(5), .integer(2), .integer(9), .text("dup")]])))
                }
            }
            let rows = try await db.withConnection { tx in
                var out: [[DatabaseValue]] = []
                let select = Select(
                    table: "conf_order_line", selection: .columns(["product_id", "note"]),
                    order: [Ordering("product_id")])
                _ = try tx.execute(.select(select)) { r in out.append([r.value(at: 0), r.value(at: 1)]) }
                return out
            }
            try checkEqual(rows, [[.integer(1), .text("-")], [.integer(2), .text("b")]], "rows kept, NULL filled")
        },
        ConformanceCase("composite-key.upsert-on-the-key") { db in
            try await migrateCompositeWorld(db)
            var first = ConfOrderLine(orderID: 1, productID: 1, quantity: 1)
            try await first.upsert(on: db)
            var same = ConfOrderLine(orderID: 1, productID: 1, quantity: 7, note: "x")
            try await same.upsert(on: db)
            var other = ConfOrderLine(orderID: 1, productID: 2, quantity: 3)
            try await other.upsert(on: db, do: .nothing)
            var kept = ConfOrderLine(orderID: 1, productID: 1, quantity: 99)
            try await kept.upsert(on: db, do: .nothing)
            try checkEqual(kept.id, ConfOrderLine.ID(orderID: 1, productID: 1), "the model keeps its key")
            let rows = try await ConfOrderLine.query(on: db).order(\.productID).all()
            try checkEqual(rows.map(\.quantity), [7, 3], "the key is the default conflict target")
            try checkEqual(rows.map(\.note), ["x", nil], "an update writes every other column")
            var twice = [
                ConfOrderLine(orderID: 2, productID: 1, quantity: 1),
                ConfOrderLine(orderID: 2, productID: 1, quantity: 2),
            ]
            try await checkThrows(
                "two models with one composite key in one upsert",
                {
                    if case .invalidQuery = $0 { return true }
                    return false
                }
            ) { try await ConfOrderLine.upsertAll(&twice, on: db, onConflict: [], do: .updateAll) }
            try checkEqual(try await ConfOrderLine.query(on: db).count(), 2, "nothing written")
        },
        ConformanceCase("composite-key.child-of-a-single-key-parent") { db in
            try await db.migrate(ConfCart.self, ConfCartItem.self)
            var cart = ConfCart(owner: "ann")
            try await cart.save(on: db)
            var other = ConfCart(owner: "bob")
            try await other.save(on: db)
            guard let cartID = cart.id, let otherID = other.id else {
                throw ConformanceFailure(description: "save set no id")
            }
            for (id, sku, count) in [(cartID, "A", 1), (cartID, "B", 2), (otherID, "A", 5)] {
                var item = ConfCartItem(cartID: id, sku: sku, count: count)
                try await item.save(on: db)
            }
            let carts = try await ConfCart.query(on: db).including(ConfCart.items).order(\.owner).all()
            try checkEqual(
                try carts.map { try $0.loaded(ConfCart.items).map(\.sku).sorted() }, [["A", "B"], ["A"]],
                "hasMany to children with a composite key")
            let items = try await ConfCartItem.query(on: db).including(ConfCartItem.cart).order(\.count).all()
            try checkEqual(
                try items.map { try $0.loaded(ConfCartItem.cart)?.owner ?? "-" }, ["ann", "ann", "bob"],
                "belongsTo from a child with a composite key")
            try await cart.delete(on: db)
            try checkEqual(
                try await ConfCartItem.query(on: db).all().map(\.cartID), [otherID],
                "destroy deletes each child by its composite key")
        },
        ConformanceCase("composite-key.failed-save-leaves-the-model-and-the-table") { db in
            try await db.migrate(ConfCart.self, ConfCartItem.self)
            var orphan = ConfCartItem(cartID: 999, sku: "A", count: 1)
            try await checkThrows(
                "an item of no cart",
                {
                    if case .foreignKeyViolation = $0 { return true }
                    return false
                }
            ) { try await orphan.save(on: db) }
            try checkEqual(orphan.createdAt, nil, "the failed insert stamped no creation time on the model")
            try checkEqual(orphan.updatedAt, nil, "nor an update time")
            try checkEqual(orphan.hasChanges, true, "the model is still new")
            try checkEqual(try await ConfCartItem.query(on: db).count(), 0, "nothing written")
            var cart = ConfCart(owner: "ann")
            try await cart.save(on: db)
            orphan.cartID = cart.id ?? 0
            try await orphan.save(on: db)
            try check(orphan.createdAt != nil, "fixed, the same model saves")
            try checkEqual(try await ConfCartItem.query(on: db).count(), 1, "one row")
        },
        ConformanceCase("composite-key.join-model-of-has-many-through") { db in
            try await db.migrate(ConfSquad.self, ConfAthlete.self, ConfSquadSeat.self)
            var red = ConfSquad(name: "red")
            var blue = ConfSquad(name: "blue")
            var ann = ConfAthlete(name: "ann")
            var bob = ConfAthlete(name: "bob")
            try await db.withConnection { tx in
                try red.add(&ann, to: ConfSquad.players, tx)
                try red.add(&bob, to: ConfSquad.players, tx)
                try blue.add(&ann, to: ConfSquad.players, tx)
            }
            let teams = try await ConfSquad.query(on: db).including(ConfSquad.players).order(\.name).all()
            try checkEqual(
                try teams.map { try $0.loaded(ConfSquad.players).map(\.name).sorted() }, [["ann"], ["ann", "bob"]],
                "targets through a join model keyed by both sides")
            try await checkThrows(
                "linking a pair twice",
                {
                    if case .uniqueViolation = $0 { return true }
                    return false
                }
            ) { try await db.withConnection { tx in try red.add(&ann, to: ConfSquad.players, tx) } }
            try await db.withConnection { tx in try red.remove(bob, from: ConfSquad.players, tx) }
            guard let redID = red.id, let annID = ann.id else { throw ConformanceFailure(description: "no ids") }
            try checkEqual(
                try await ConfSquadSeat.find(ConfSquadSeat.ID(teamID: redID, playerID: annID), on: db)?.playerID, annID,
                "a join row found by its pair")
            try checkEqual(try await ConfSquadSeat.query(on: db).count(), 2, "remove deleted one join row")
            try await red.delete(on: db)
            try checkEqual(try await ConfSquadSeat.query(on: db).count(), 1, "deleting the team deleted its join rows")
            try checkEqual(try await ConfAthlete.query(on: db).count(), 2, "the players stay")
        },
        ConformanceCase("composite-key.association-to-a-composite-key-is-refused") { db in
            try await db.migrate(ConfOrderLine.self, ConfLineNote.self)
            var line = ConfOrderLine(orderID: 1, productID: 1, quantity: 1)
            try await line.save(on: db)
            var note = ConfLineNote(orderID: 1, text: "n")
            try await note.save(on: db)
            try await checkThrows(
                "belongsTo a model with a composite key",
                {
                    if case .invalidAssociation(let reason) = $0 { return reason.contains("ConfOrderLine") }
                    return false
                }
            ) { try await ConfLineNote.query(on: db).including(ConfLineNote.line).all() }
            try checkEqual(try await ConfLineNote.query(on: db).count(), 1, "the note is untouched")
        },
    ]
}
