// Cases+CompositeKeyAssociations: associations to a model with a composite key, by a foreign key of several columns.
import Strata

/// A shipment keyed by its shop and its number (an integer and a text column).
@Model(table: "conf_shipment", primaryKey: ["shopID", "number"])
struct ConfShipment {
    var shopID: Int64
    var number: String
    var carrier: String
    static let parcels = hasMany(ConfParcel.self, keys: \.shopID, \.shipmentNumber, onDelete: .destroy)
    static let label = hasOne(ConfShipLabel.self, keys: \.shopID, \.shipmentNumber, onDelete: .restrict)
}

/// A parcel of a shipment: its two-column foreign key; a NULL number points at no shipment.
@Model(table: "conf_parcel")
struct ConfParcel {
    var id: Int64?
    var shopID: Int64
    var shipmentNumber: String?
    var grams: Int
    static let shipment = belongsTo(ConfShipment.self, keys: \.shopID, \.shipmentNumber)
}

/// The one label of a shipment, which refuses the shipment's deletion while it exists.
@Model(table: "conf_ship_label")
struct ConfShipLabel {
    var id: Int64?
    var shopID: Int64
    var shipmentNumber: String
    var code: String
    static let shipment = belongsTo(ConfShipment.self, keys: \.shopID, \.shipmentNumber)
}

/// A sticker that outlives its shipment: the database clears both of its key columns (ON DELETE SET NULL).
@Model(table: "conf_ship_sticker")
struct ConfShipSticker {
    var id: Int64?
    var shopID: Int64?
    var shipmentNumber: String?
    static let shipment = belongsTo(ConfShipment.self, keys: \.shopID, \.shipmentNumber, onDelete: .nullify)
}

/// Foreign keys that do not fit the shipment's key: one column of two, and the columns' types swapped.
@Model(table: "conf_stray_parcel")
struct ConfStrayParcel {
    var id: Int64?
    var shopID: Int64
    var shipmentNumber: String
    static let short = belongsTo(ConfShipment.self, keys: \.shopID)
    static let swapped = belongsTo(ConfShipment.self, keys: \.shipmentNumber, \.shopID)
}

extension ConformanceSuite {
    /// Three shipments sharing key parts ((1, A), (1, B), (2, A)), parcels on two of them and one with no number.
    static func seedShipments(_ db: Database) async throws {
        try await db.migrate(ConfShipment.self, ConfParcel.self, ConfShipLabel.self)
        for (shop, number, carrier) in [(1, "A", "post"), (1, "B", "rail"), (2, "A", "ship")]
            as [(Int64, String, String)]
        {
            var shipment = ConfShipment(shopID: shop, number: number, carrier: carrier)
            try await shipment.save(on: db)
        }
        for (shop, number, grams) in [(1, "A", 10), (1, "A", 20), (2, "A", 30), (1, nil, 40)] as [(Int64, String?, Int)]
        {
            var parcel = ConfParcel(shopID: shop, shipmentNumber: number, grams: grams)
            try await parcel.save(on: db)
        }
    }

    static let compositeKeyAssociationCases: [ConformanceCase] = [
        ConformanceCase("composite-key.association-loads-both-ways") { db in
            try await seedShipments(db)
            let parcels = try await ConfParcel.query(on: db).order(\.grams).all()
            var carriers: [String] = []
            for parcel in parcels {
                carriers.append(try await parcel.fetch(ConfParcel.shipment, on: db)?.carrier ?? "-")
            }
            try checkEqual(carriers, ["post", "post", "ship", "-"], "belongsTo by both columns; a NULL part, none")
            let shipments = try await ConfShipment.query(on: db).order(\.shopID).order(\.number).all()
            var grams: [[Int]] = []
            for shipment in shipments {
                grams.append(try await shipment.fetch(ConfShipment.parcels, on: db).map(\.grams).sorted())
            }
            try checkEqual(grams, [[10, 20], [], [30]], "hasMany by both columns: parts shared apart do not match")
            var railway = shipments[1]
            var loose = parcels[3]
            try await railway.add(&loose, to: ConfShipment.parcels, on: db)
            try checkEqual("\(loose.shopID)\(loose.shipmentNumber ?? "-")", "1B", "add sets both key columns")
            try checkEqual(
                try await railway.fetch(ConfShipment.parcels, on: db).map(\.grams), [40], "and saves the child")
            try await checkThrows(
                "remove, which would clear a key column that cannot be NULL",
                {
                    if case .invalidAssociation(let reason) = $0 { return reason.contains("ConfParcel.shop_id") }
                    return false
                }
            ) { try await railway.remove(&loose, from: ConfShipment.parcels, on: db) }
            try checkEqual(loose.shipmentNumber, "B", "the refused child keeps its key")
            try checkEqual(
                try await ConfParcel.find(loose.id ?? 0, on: db)?.shipmentNumber, "B", "and its row is untouched")
            try loose.set(ConfParcel.shipment, to: shipments[2])
            try await loose.save(on: db)
            try checkEqual(
                try await loose.fetch(ConfParcel.shipment, on: db)?.carrier, "ship", "set points at both columns")
        },
        ConformanceCase("composite-key.association-eager-loads-in-one-query") { db in
            try await seedShipments(db)
            var label = ConfShipLabel(shopID: 1, shipmentNumber: "B", code: "L1")
            try await label.save(on: db)
            var before = db.statementCount
            let parcels = try await ConfParcel.query(on: db).including(ConfParcel.shipment).order(\.grams).all()
            try checkEqual(db.statementCount - before, 2, "parcels, then their shipments in one query")
            try checkEqual(
                try parcels.map { try $0.loaded(ConfParcel.shipment)?.carrier ?? "-" }, ["post", "post", "ship", "-"],
                "each parcel's shipment attached")
            before = db.statementCount
            let shipments = try await ConfShipment.query(on: db).order(\.shopID).order(\.number)
                .including(ConfShipment.parcels).including(ConfShipment.label).all()
            try checkEqual(db.statementCount - before, 3, "shipments, their parcels, their labels")
            try checkEqual(
                try shipments.map { try $0.loaded(ConfShipment.parcels).map(\.grams).sorted() }, [[10, 20], [], [30]],
                "hasMany eager-loaded")
            try checkEqual(
                try shipments.map { try $0.loaded(ConfShipment.label)?.code ?? "-" }, ["-", "L1", "-"],
                "hasOne eager-loaded")
            let pairs = try await ConfParcel.query(on: db).join(ConfParcel.shipment, .left).order(\.grams)
                .allJoined(ConfParcel.shipment)
            try checkEqual(
                pairs.map { "\($0.0?.grams ?? 0)/\($0.1?.carrier ?? "-")" }, ["10/post", "20/post", "30/ship", "40/-"],
                "a join on both columns")
            let counts = try await ConfShipment.query(on: db).order(\.shopID).order(\.number)
                .all(with: .count(ConfShipment.parcels))
            try checkEqual(counts.map { "\($0.0.number)\($0.0.shopID):\($0.1)" }, ["A1:2", "B1:0", "A2:1"], "counts")
        },
        ConformanceCase("composite-key.association-delete-rules") { db in
            try await seedShipments(db)
            var label = ConfShipLabel(shopID: 1, shipmentNumber: "A", code: "L1")
            try await label.save(on: db)
            guard var shipment = try await ConfShipment.find(ConfShipment.ID(shopID: 1, number: "A"), on: db) else {
                throw ConformanceFailure(description: "the seeded shipment is missing")
            }
            try await checkThrows(
                "deleting a shipment with a label (restrict)",
                {
                    $0
                        == .deleteRestricted(
                            model: "ConfShipLabel", association: "hasOne conf_ship_label.(shop_id, shipment_number)")
                }
            ) { try await shipment.delete(on: db) }
            try checkEqual(try await ConfShipment.query(on: db).count(), 3, "the refused delete deleted nothing")
            try checkEqual(try await ConfParcel.query(on: db).count(), 4, "not even the parcels it would destroy")
            try checkEqual(shipment.carrier, "post", "the model is as it was")
            try await label.delete(on: db)
            try checkEqual(try await shipment.delete(on: db), true, "without its label the shipment deletes")
            try checkEqual(
                try await ConfParcel.query(on: db).order(\.grams).all().map(\.grams), [30, 40],
                "destroy deleted its parcels only, not those sharing one key column")
        },
        ConformanceCase("composite-key.association-key-that-does-not-fit-is-refused") { db in
            try await db.migrate(ConfShipment.self, ConfStrayParcel.self)
            var shipment = ConfShipment(shopID: 1, number: "A", carrier: "post")
            try await shipment.save(on: db)
            var stray = ConfStrayParcel(shopID: 1, shipmentNumber: "A")
            try await stray.save(on: db)
            try await checkThrows(
                "a foreign key of one column to a key of two",
                {
                    if case .invalidAssociation(let reason) = $0 {
                        return reason.contains("ConfStrayParcel") && reason.contains("shop_id")
                            && reason.contains("ConfShipment")
                    }
                    return false
                }
            ) { try await ConfStrayParcel.query(on: db).including(ConfStrayParcel.short).all() }
            try await checkThrows(
                "a foreign key whose columns' types do not match the key's",
                {
                    if case .invalidAssociation(let reason) = $0 {
                        return reason.contains("ConfStrayParcel.shipment_number") && reason.contains("shop_id")
                    }
                    return false
                }
            ) { try await stray.fetch(ConfStrayParcel.swapped, on: db) }
            try await checkThrows(
                "set through a key that does not fit",
                {
                    if case .invalidAssociation(let reason) = $0 { return reason.contains("ConfStrayParcel") }
                    return false
                }
            ) { try stray.set(ConfStrayParcel.swapped, to: shipment) }
            try checkEqual("\(stray.shopID)\(stray.shipmentNumber)", "1A", "the refused model is as it was")
            try checkEqual(try await ConfStrayParcel.query(on: db).count(), 1, "the stray row is untouched")
        },
        ConformanceCase("composite-key.association-foreign-key-refuses-an-orphan") { db in
            try await seedShipments(db)
            var orphan = ConfParcel(shopID: 2, shipmentNumber: "B", grams: 5)
            try await checkThrows(
                "a parcel whose two key parts exist apart but not together",
                {
                    if case .foreignKeyViolation(let table) = $0 { return table == nil || table == "conf_parcel" }
                    return false
                }
            ) { try await orphan.save(on: db) }
            try checkEqual(orphan.id, nil, "the refused model got no id")
            try checkEqual(orphan.shipmentNumber, "B", "and keeps what the caller set")
            try checkEqual(orphan.hasChanges, true, "it is still new")
            try checkEqual(try await ConfParcel.query(on: db).count(), 4, "nothing written")
            orphan.shipmentNumber = "A"
            try await orphan.save(on: db)
            try checkEqual(try await ConfParcel.query(on: db).count(), 5, "fixed, the same model saves")
            var loose = ConfParcel(shopID: 77, shipmentNumber: nil, grams: 6)
            try await loose.save(on: db)
            try check(loose.id != nil, "a key with a NULL part references nothing and is not checked (MATCH SIMPLE)")
        },
        ConformanceCase("composite-key.association-foreign-key-actions-in-the-database") { db in
            try await seedShipments(db)
            var label = ConfShipLabel(shopID: 2, shipmentNumber: "A", code: "L2")
            try await label.save(on: db)
            try await db.migrate(ConfShipSticker.self)
            var sticker = ConfShipSticker(shopID: 1, shipmentNumber: "A")
            try await sticker.save(on: db)
            try await checkThrows(
                "a bulk delete of a labelled shipment (ON DELETE RESTRICT)",
                {
                    if case .foreignKeyViolation(let table) = $0 { return table != "conf_parcel" }
                    return false
                }
            ) { try await ConfShipment.query(on: db).where(\.shopID == 2).delete() }
            try checkEqual(try await ConfShipment.query(on: db).count(), 3, "the refused statement deleted nothing")
            try checkEqual(try await ConfParcel.query(on: db).count(), 4, "nor cascaded")
            let deleted = try await ConfShipment.query(on: db).where(\.shopID == 1).where(\.number == "A").delete()
            try checkEqual(deleted, 1, "a bulk delete runs no callbacks")
            try checkEqual(
                try await ConfParcel.query(on: db).order(\.grams).all().map(\.grams), [30, 40],
                "ON DELETE CASCADE (the parent's destroy) deleted its parcels in the database")
            try await sticker.reload(on: db)
            try checkEqual(
                "\(sticker.shopID.map(String.init) ?? "nil") \(sticker.shipmentNumber ?? "nil")", "nil nil",
                "ON DELETE SET NULL cleared both key columns")
        },
        ConformanceCase("composite-key.association-foreign-key-migrates-twice") { db in
            try await seedShipments(db)
            let declared = ForeignKey(
                columns: ["shop_id", "shipment_number"], references: "conf_shipment", columns: ["shop_id", "number"],
                onDelete: .cascade)
            var live = try await db.withConnection { tx in try tx.introspect() }
            try checkEqual(live[table: "conf_parcel"]?.foreignKeys, [declared], "the two-column key read back")
            try checkEqual(
                live[table: "conf_ship_label"]?.foreignKeys.map(\.onDelete), [.restrict], "the restrict one too")
            let plan = try await db.withConnection { tx in
                try tx.plan([ConfShipment.self, ConfParcel.self, ConfShipLabel.self])
            }
            try checkEqual(plan.changes.map { "\($0.change)" }, [], "a second migration plans no change")
            // SQLite rebuilds the table for this change, from the table it reads back: the key must survive.
            try await db.migrate([
                Migration("ck-fk") { up in up.alterColumn("grams", in: "conf_parcel", to: .integer, nullable: true) }
            ])
            live = try await db.withConnection { tx in try tx.introspect() }
            try checkEqual(live[table: "conf_parcel"]?.foreignKeys, [declared], "the key after the table changed")
            var orphan = ConfParcel(shopID: 1, shipmentNumber: "C", grams: 1)
            try await checkThrows(
                "an orphan after the change",
                {
                    if case .foreignKeyViolation = $0 { return true }
                    return false
                }
            ) { try await orphan.save(on: db) }
            try checkEqual(try await ConfParcel.query(on: db).count(), 4, "nothing written")
        },
    ]
}
