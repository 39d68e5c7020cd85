// Cases+CompositeKeyExistence: whereExists / whereNotExists over an association whose key has several columns.
import Strata

/// A leg of a shipment's route, keyed by shop and leg number, pointing at the leg before it in the same table.
@Model(table: "conf_ship_leg", primaryKey: ["shopID", "leg"])
struct ConfShipLeg {
    var shopID: Int64
    var leg: Int64
    var previousLeg: Int64?
    static let previous = belongsTo(ConfShipLeg.self, keys: \.shopID, \.previousLeg)
}

extension ConformanceSuite {
    /// Keys of the shipments in `(shop, number)` order, as `1A`.
    static func shipmentKeys(_ query: QueryBuilder<ConfShipment, Database>) async throws -> [String] {
        try await query.order(\.shopID).order(\.number).all().map { "\($0.shopID)\($0.number)" }
    }

    static let compositeKeyExistenceCases: [ConformanceCase] = [
        ConformanceCase("composite-key.association-where-exists-has-many-and-has-one") { db in
            try await seedShipments(db)  // parcels on (1, A) twice and (2, A); (1, B) has none
            var label = ConfShipLabel(shopID: 1, shipmentNumber: "B", code: "L1")
            try await label.save(on: db)
            try checkEqual(
                try await shipmentKeys(ConfShipment.query(on: db).whereExists(ConfShipment.parcels)), ["1A", "2A"],
                "shipments with a parcel: both key columns match, parts shared apart do not")
            try checkEqual(
                try await shipmentKeys(ConfShipment.query(on: db).whereExists(ConfShipment.parcels, \.grams > 25)),
                ["2A"], "with a filter on the parcel")
            try checkEqual(
                try await shipmentKeys(ConfShipment.query(on: db).whereNotExists(ConfShipment.parcels)), ["1B"],
                "whereNotExists keeps exactly the others")
            try checkEqual(
                try await shipmentKeys(
                    ConfShipment.query(on: db).whereNotExists(ConfShipment.parcels, \.grams > 25)),
                ["1A", "1B"], "whereNotExists with a filter")
            try checkEqual(
                try await shipmentKeys(ConfShipment.query(on: db).whereExists(ConfShipment.label)), ["1B"],
                "hasOne by both columns")
            try checkEqual(
                try await ConfShipment.query(on: db).whereExists(ConfShipment.parcels).where(\.carrier == "ship")
                    .count(), 1, "with other filters, counted")
            try checkEqual(
                try await ConfShipment.query(on: db).whereExists(ConfShipment.parcels)
                    .whereExists(ConfShipment.label).count(), 0, "two tests together")
            let busy = try await ConfShipment.query(on: db).having(.count(ConfShipment.parcels) > 1)
                .order(.count(ConfShipment.parcels), .descending).all(with: .count(ConfShipment.parcels))
            try checkEqual(
                busy.map { "\($0.0.shopID)\($0.0.number):\($0.1)" }, ["1A:2"],
                "an association aggregate's HAVING over both columns (the join path, not EXISTS)")
        },
        ConformanceCase("composite-key.association-where-exists-belongs-to") { db in
            try await seedShipments(db)  // the 40 g parcel has no number: it points at nothing
            let grams = { (q: QueryBuilder<ConfParcel, Database>) in try await q.order(\.grams).all().map(\.grams) }
            try checkEqual(
                try await grams(ConfParcel.query(on: db).whereExists(ConfParcel.shipment)), [10, 20, 30],
                "parcels with a shipment; a NULL key part matches none")
            try checkEqual(
                try await grams(ConfParcel.query(on: db).whereExists(ConfParcel.shipment, \.carrier == "post")),
                [10, 20], "with a filter on the shipment")
            try checkEqual(
                try await grams(ConfParcel.query(on: db).whereNotExists(ConfParcel.shipment)), [40],
                "whereNotExists: the parcel with a NULL part is kept, never lost to an unknown")
            try checkEqual(
                try await grams(
                    ConfParcel.query(on: db).whereNotExists(ConfParcel.shipment, \.carrier == "post")),
                [30, 40], "whereNotExists with a filter")
        },
        ConformanceCase("composite-key.association-where-exists-in-bulk-writes") { db in
            try await seedShipments(db)
            let updated = try await ConfShipment.query(on: db).whereNotExists(ConfShipment.parcels)
                .set(\.carrier, to: "idle").update()
            try checkEqual(updated, 1, "an UPDATE tests each row of its own table")
            try checkEqual(
                try await ConfShipment.query(on: db).order(\.shopID).order(\.number).all().map(\.carrier),
                ["post", "idle", "ship"], "the shipment without parcels only")
            let deleted = try await ConfParcel.query(on: db).whereNotExists(ConfParcel.shipment).delete()
            try checkEqual(deleted, 1, "a DELETE tests each row of its own table")
            try checkEqual(
                try await ConfParcel.query(on: db).order(\.grams).all().map(\.grams), [10, 20, 30],
                "the parcel pointing at nothing went, the others stay")
        },
        ConformanceCase("composite-key.association-where-exists-refuses-its-own-table") { db in
            try await db.migrate(ConfShipLeg.self)
            var first = ConfShipLeg(shopID: 1, leg: 1, previousLeg: nil)
            try await first.save(on: db)
            try await checkThrows(
                "whereExists over an association to the model's own table by two columns",
                {
                    if case .invalidAssociation(let reason) = $0 {
                        return reason.contains("ConfShipLeg") && reason.contains("own table")
                    }
                    return false
                }
            ) { try await ConfShipLeg.query(on: db).whereExists(ConfShipLeg.previous).all() }
            try await checkThrows(
                "and a bulk delete through it, which deletes nothing",
                {
                    if case .invalidAssociation = $0 { return true }
                    return false
                }
            ) { try await ConfShipLeg.query(on: db).whereNotExists(ConfShipLeg.previous).delete() }
            try checkEqual(try await ConfShipLeg.query(on: db).count(), 1, "the row is untouched")
        },
    ]
}
