// MigrationLog: the strata_migrations table that records applied versioned steps and automatic migrations.
import Foundation

/// The record of what migrated a database: one row per applied versioned step, and one per automatic
/// migration that changed something.
public struct MigrationRecord: Sendable, Hashable {
    /// `versioned` for a ``Migration`` step, `automatic` for ``Transaction/migrate(_:policy:)-([Model.],_)``.
    public var kind: String
    /// The step's name, or the table an automatic migration changed.
    public var name: String
    /// The step's ``Migration/checksum``, or empty for automatic migrations.
    public var checksum: String
    /// What was done, one change per line.
    public var summary: String
    /// When it was applied (UTC, whole microseconds).
    public var appliedAt: Date
}

enum MigrationLog {
    static let table = "strata_migrations"

    static let schema = TableSchema(
        name: table,
        columns: [
            TableColumn(name: "id", type: .integer, isNullable: true, isPrimaryKey: true),
            TableColumn(name: "kind", type: .text, isNullable: false),
            TableColumn(name: "name", type: .text, isNullable: false),
            TableColumn(name: "checksum", type: .text, isNullable: false),
            TableColumn(name: "summary", type: .text, isNullable: false),
            TableColumn(name: "applied_at", type: .date, isNullable: false),
        ])

    /// Creates the table unless it exists.
    static func ensureTable(_ tx: Transaction) throws {
        if try tx.columns(of: table) == nil { _ = try tx.execute(.createTable(schema)) }
    }

    /// Every record, oldest first; empty when the table does not exist.
    static func read(_ tx: Transaction) throws -> [MigrationRecord] {
        guard try tx.columns(of: table) != nil else { return [] }
        var out: [MigrationRecord] = []
        let select = Select(
            table: table, selection: .columns(["kind", "name", "checksum", "summary", "applied_at"]),
            order: [.key("id")])
        _ = try tx.execute(.select(select)) { r in
            let at = ValueConversion.normalize(r.value(at: 4), as: .date)
            var date = Date(timeIntervalSince1970: 0)
            if case .date(let d) = at { date = d }
            out.append(
                MigrationRecord(
                    kind: r.string(at: 0) ?? "", name: r.string(at: 1) ?? "", checksum: r.string(at: 2) ?? "",
                    summary: r.string(at: 3) ?? "", appliedAt: date))
        }
        return out
    }

    /// The versioned steps applied, by name.
    static func applied(_ tx: Transaction) throws -> [String: MigrationRecord] {
        var out: [String: MigrationRecord] = [:]
        for r in try read(tx) where r.kind == "versioned" { out[r.name] = r }
        return out
    }

    /// One row to record: the kind (`versioned`, `automatic`), the step's or table's name, the checksum and what
    /// was done.
    struct Entry {
        var kind: String
        var name: String
        var checksum: String
        var summary: String
    }

    /// Records `entries` in one INSERT, oldest first (ids in that order), creating the table first if needed.
    static func record(_ tx: Transaction, _ entries: [Entry]) throws {
        guard !entries.isEmpty else { return }
        try ensureTable(tx)
        let now = DatabaseValue.date(DatabaseValue.roundedToMicroseconds(Date()))
        _ = try tx.execute(
            .insert(
                Insert(
                    table: table, columns: ["kind", "name", "checksum", "summary", "applied_at"],
                    rows: entries.map { [.text($0.kind), .text($0.name), .text($0.checksum), .text($0.summary), now] }
                )))
    }

    static func forget(_ tx: Transaction, name: String) throws {
        let filter = SQLExpression.and([
            .compare(.equal, .column("kind"), .value(.text("versioned"))),
            .compare(.equal, .column("name"), .value(.text(name))),
        ])
        _ = try tx.execute(.delete(Delete(table: table, filter: filter)))
    }
}
