// MigrationModel: the model the migration tester writes through while its table is migrated under it, and the data
// transforms its migration steps run.
import Foundation
import Strata

/// An item of `mp_item`: the model a migration program saves, updates, upserts, deletes and reads between (and inside)
/// the steps that change its table: columns renamed, retyped, dropped or added under it, indexes and keys put on it.
/// Its key is given by the program, so every backend holds the same keys.
@Model(table: "mp_item")
public struct MPItem {
    public var id: Int64?
    public var name: String
    public var qty: Int64
    public var price: Double?
    @Version public var version: Int64 = 0

    /// The item as a program's outcome shows it.
    var text: String {
        "#\(id.map(String.init) ?? "nil") \(name.debugDescription) qty \(qty) price \(price.map { "\($0)" } ?? "nil") v\(version)"
    }

}

/// A tag of `mp_tag`: a model keyed by text the program chooses (so `insertAll`, `upsert` and `load` take their keys),
/// with a foreign key to ``MPItem``.
@Model(table: "mp_tag")
public struct MPTag {
    public var id: String?
    public var label: String
    public var weight: Double
    public var itemID: Int64?
    public static var foreignKeys: [ForeignKey] { [.from(\MPTag.itemID, to: MPItem.self)] }

    /// The tag as a program's outcome shows it.
    var text: String {
        "\(id ?? "nil") \(label.debugDescription) weight \(weight) item \(itemID.map(String.init) ?? "nil")"
    }
}

/// The models a migration program writes through.
public enum MigrationModel: String, Sendable, CaseIterable {
    case item = "MPItem"
    case tag = "MPTag"

    /// The model's type.
    var type: any Model.Type {
        switch self {
        case .item: MPItem.self
        case .tag: MPTag.self
        }
    }

    /// The table a versioned step creates for the model, as `createTable(for:)` plans it.
    var plannedSchema: TableSchema {
        var steps = MigrationSteps()
        steps.createTable(for: type)
        guard case .schema(.createTable(let schema))? = steps.operations.first else {
            preconditionFailure("createTable(for:) plans a table")
        }
        return schema
    }
}

/// A write (or a read) through ``MPItem`` or ``MPTag``, in a transaction of its own.
public enum MigrationModelWrite: Sendable, CustomStringConvertible {
    /// An item built with its key and saved: updated where its row is there, inserted where not.
    case save(id: Int64, name: String, qty: Int64, price: Double?)
    /// The item found by its key, its quantity moved by `by` (wrapping) and saved: its version checked and moved.
    case adjust(id: Int64, by: Int64)
    /// The item found by its key, and deleted.
    case delete(id: Int64)
    /// A tag built with its key (and an item's, or none) and saved: updated where its row is there, inserted where not.
    case saveTag(id: String, label: String, weight: Double, item: Int64?)
    /// Tags built with their keys, inserted by one `insertAll`.
    case insertTags([String], label: String, weight: Double)
    /// A tag built with its key and upserted on it (`onConflict: \.id`).
    case upsertTag(id: String, label: String, weight: Double)
    /// Tags built with their keys, loaded by `load` (a bulk insert that leaves the models as they are).
    case loadTags([String], label: String)
    /// A bulk `set(\.name, to:).update()` of the items whose quantity is below `below`.
    case rename(below: Int64, to: String)
    /// Every item read in key order.
    case fetchAll

    public var description: String {
        switch self {
        case .save(let id, let name, let qty, let price):
            return
                "MPItem(id: \(id), name: \(name.debugDescription), qty: \(qty), price: \(price.map { "\($0)" } ?? "nil")).save"
        case .adjust(let id, let by): return "MPItem.find(\(id)), qty += \(by), save"
        case .delete(let id): return "MPItem.find(\(id))?.delete"
        case .saveTag(let id, let label, let weight, let item):
            return
                "MPTag(id: \(id.debugDescription), label: \(label.debugDescription), weight: \(weight), item: \(item.map(String.init) ?? "nil")).save"
        case .insertTags(let ids, let label, let weight):
            return
                "MPTag.insertAll(ids \(ids.joined(separator: ", ")), label \(label.debugDescription), weight \(weight))"
        case .upsertTag(let id, let label, let weight):
            return "MPTag(id: \(id.debugDescription), label: \(label.debugDescription), weight: \(weight)).upsert"
        case .loadTags(let ids, let label):
            return "MPTag.load(ids \(ids.joined(separator: ", ")), label \(label.debugDescription))"
        case .rename(let below, let to):
            return "MPItem.query.where(qty < \(below)).set(name: \(to.debugDescription)).update()"
        case .fetchAll: return "MPItem.query.order(by: id).all()"
        }
    }

    /// Runs the write in `tx`: what it did (the models as they are after it, or the rows it changed), or the error.
    /// A call that throws must leave its models as they were: when one does not, the error says so.
    func run(_ tx: Transaction) throws -> String {
        func unchanged<T: Equatable>(_ before: T, _ after: T, _ call: String, _ error: any Error) -> any Error {
            before == after
                ? error
                : StrataError.divergence(statement: call, details: "the model changed though the call threw \(error)")
        }
        switch self {
        case .save(let id, let name, let qty, let price):
            var item = MPItem(id: id, name: name, qty: qty, price: price)
            let before = item
            do { try item.save(tx) } catch { throw unchanged(before.text, item.text, "save", error) }
            return item.text
        case .adjust(let id, let by):
            guard var item = try MPItem.find(id, tx) else { return "none" }
            item.qty &+= by
            let before = item
            do { try item.save(tx) } catch { throw unchanged(before.text, item.text, "save", error) }
            return item.text
        case .delete(let id):
            guard let item = try MPItem.find(id, tx) else { return "none" }
            try item.delete(tx)
            return "deleted " + item.text
        case .saveTag(let id, let label, let weight, let item):
            var tag = MPTag(id: id, label: label, weight: weight, itemID: item)
            let before = tag.text
            do { try tag.save(tx) } catch { throw unchanged(before, tag.text, "save", error) }
            return tag.text
        case .insertTags(let ids, let label, let weight):
            var tags = ids.map { MPTag(id: $0, label: label, weight: weight, itemID: nil) }
            let before = tags.map(\.text)
            do { try MPTag.insertAll(&tags, tx) } catch {
                throw unchanged(before, tags.map(\.text), "insertAll", error)
            }
            return tags.map(\.text).joined(separator: "; ")
        case .upsertTag(let id, let label, let weight):
            var tag = MPTag(id: id, label: label, weight: weight, itemID: nil)
            let before = tag.text
            do { try tag.upsert(tx, onConflict: \.id) } catch { throw unchanged(before, tag.text, "upsert", error) }
            return tag.text
        case .loadTags(let ids, let label):
            try MPTag.load(ids.map { MPTag(id: $0, label: label, weight: 0.5, itemID: nil) }, tx)
            return "loaded \(ids.count)"
        case .rename(let below, let name):
            return "\(try MPItem.query(on: tx).where(\.qty < below).set(\.name, to: name).update()) changed"
        case .fetchAll:
            return try MPItem.query(on: tx).order(\.id).all().map(\.text).joined(separator: "; ")
        }
    }
}

/// The error a ``MigrationTransform/fail`` transform throws: an app's own, not a ``StrataError``.
public struct MigrationTransformFault: Error, Sendable {}

/// A data transform of a migration step, run in the step's transaction between its schema changes.
public enum MigrationTransform: Sendable, CustomStringConvertible {
    /// `UPDATE table SET column = value`, through the query AST, of the rows whose key is at most `keysUpTo` (every
    /// row when nil).
    case update(table: String, column: String, value: DatabaseValue, keysUpTo: Int64?)
    /// Every item read through ``MPItem``, its quantity moved by `by` (wrapping) and saved, one by one.
    case itemsSaved(by: Int64)
    /// A bulk update through the model: the quantity of the items whose quantity is at least `atLeast` set to `qty`.
    case itemsUpdated(atLeast: Int64, qty: Int64)
    /// A bulk delete through the model of the items whose quantity is at least `atLeast`.
    case itemsDeleted(atLeast: Int64)
    /// An item inserted through the model with its key.
    case itemInserted(id: Int64, name: String, qty: Int64)
    /// Throws the app's own error, after what ran before it in the step: the whole step rolls back.
    case fail

    public var description: String {
        switch self {
        case .update(let table, let column, let value, let keys):
            return "transform: update \(table) set \(column) = \(value.summary)"
                + (keys.map { " where id <= \($0)" } ?? "")
        case .itemsSaved(let by): return "transform: each MPItem qty += \(by), saved"
        case .itemsUpdated(let atLeast, let qty): return "transform: MPItem where qty >= \(atLeast) set qty = \(qty)"
        case .itemsDeleted(let atLeast): return "transform: MPItem where qty >= \(atLeast) deleted"
        case .itemInserted(let id, let name, let qty):
            return "transform: MPItem(id: \(id), name: \(name.debugDescription), qty: \(qty)) inserted"
        case .fail: return "transform: throws"
        }
    }

    /// The transform as a migration operation, labelled by its description.
    var operation: MigrationOperation {
        let transform = self
        return .transform(label: description) { tx in try transform.run(tx) }
    }

    func run(_ tx: Transaction) throws {
        switch self {
        case .update(let table, let column, let value, let keys):
            let filter = keys.map { SQLExpression.compare(.lessOrEqual, .column("id"), .value(.integer($0))) }
            _ = try tx.execute(.update(Update(table: table, assignments: [Assignment(column, value)], filter: filter)))
        case .itemsSaved(let by):
            for var item in try MPItem.query(on: tx).order(\.id).all() {
                item.qty &+= by
                try item.save(tx)
            }
        case .itemsUpdated(let atLeast, let qty):
            _ = try MPItem.query(on: tx).where(\.qty >= atLeast).set(\.qty, to: qty).update()
        case .itemsDeleted(let atLeast):
            _ = try MPItem.query(on: tx).where(\.qty >= atLeast).delete()
        case .itemInserted(let id, let name, let qty):
            var item = MPItem(id: id, name: name, qty: qty, price: nil)
            try item.save(tx)
        case .fail:
            throw MigrationTransformFault()
        }
    }
}
