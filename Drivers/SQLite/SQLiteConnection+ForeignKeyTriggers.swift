// SQLiteConnection+ForeignKeyTriggers: foreign keys enforced by temporary triggers while a migration step's transform
// runs with SQLite's own enforcement off.
import Strata

extension SQLiteConnection {
    /// Runs `body` with every foreign key of the main database enforced as SQLite enforces it when its pragma is on,
    /// where the pragma is off (a migration step turns it off for its table rebuilds, and SQLite cannot turn it back
    /// on inside the step's transaction): a row written with a key its parent lacks is refused, a deleted or re-keyed
    /// parent row's children get its `ON DELETE` (or `ON UPDATE`) action, and a refusal is SQLite's own
    /// `FOREIGN KEY constraint failed`, a ``StrataError/foreignKeyViolation(table:)``. The triggers are temporary and
    /// dropped after `body`; a failed step's rollback drops them too.
    public func enforcingForeignKeys(_ body: () throws -> Void) throws {
        guard !(try foreignKeysEnforced()) else { return try body() }
        let triggers = try foreignKeyTriggers()
        guard !triggers.isEmpty else { return try body() }
        // A cascade within one table (a tree's rows deleting their children) fires the table's own trigger again.
        let recursive = try rows("PRAGMA recursive_triggers").first?.first == .integer(1)
        if !recursive { _ = try rows("PRAGMA recursive_triggers = ON") }
        var created: [String] = []
        defer {
            for name in created.reversed() {
                _ = try? rows("DROP TRIGGER IF EXISTS temp." + ((try? dialect.quote(name)) ?? name))
            }
            if !recursive { _ = try? rows("PRAGMA recursive_triggers = OFF") }
        }
        for trigger in triggers {
            _ = try rows(trigger.sql)
            created.append(trigger.name)
        }
        try body()
    }

    /// One foreign key as `pragma_foreign_key_list` lists it, its columns in order.
    private struct ListedKey {
        var child: String
        var parent: String
        var from: [String]
        var to: [String?]
        var onUpdate: String
        var onDelete: String
    }

    /// The temporary triggers that enforce every foreign key of the main database's tables.
    private func foreignKeyTriggers() throws -> [(name: String, sql: String)] {
        let tables = try liveTables()
        var keys: [ListedKey] = []
        for table in tables {
            var byID: [Int64: ListedKey] = [:]
            var order: [Int64] = []
            let sql =
                "SELECT id, \"table\", \"from\", \"to\", on_update, on_delete FROM pragma_foreign_key_list(?1) "
                + "ORDER BY id, seq"
            for r in try rows(sql, [.text(table)]) {
                guard case .integer(let id) = r[0], case .text(let parent) = r[1], case .text(let from) = r[2] else {
                    continue
                }
                var to: String?
                if case .text(let t) = r[3] { to = t }
                if byID[id] == nil {
                    order.append(id)
                    var update = "NO ACTION"
                    var delete = "NO ACTION"
                    if case .text(let u) = r[4] { update = u.uppercased() }
                    if case .text(let d) = r[5] { delete = d.uppercased() }
                    byID[id] = ListedKey(
                        child: table, parent: parent, from: [], to: [], onUpdate: update, onDelete: delete)
                }
                byID[id]?.from.append(from)
                byID[id]?.to.append(to)
            }
            keys += order.compactMap { byID[$0] }
        }
        var triggers: [(name: String, sql: String)] = []
        for (n, key) in keys.enumerated() {
            // The parent's columns: named, or its primary key's in order.
            var to = key.to.compactMap { $0 }
            if to.count != key.from.count {
                to = try rows("SELECT name FROM pragma_table_info(?1) WHERE pk > 0 ORDER BY pk", [.text(key.parent)])
                    .compactMap { if case .text(let c) = $0[0] { c } else { nil } }
            }
            guard to.count == key.from.count, tables.contains(key.parent) else { continue }
            triggers += try keyTriggers(for: key, parentColumns: to, number: n)
        }
        return triggers
    }

    /// The triggers of one foreign key: its child's inserts and key updates checked, its parent's deletes and key
    /// updates checked or carried to the children.
    private func keyTriggers(for key: ListedKey, parentColumns to: [String], number n: Int) throws -> [(
        name: String, sql: String
    )] {
        let q = { (name: String) throws -> String in try self.dialect.quote(name) }
        let child = try "main." + q(key.child)
        let parent = try "main." + q(key.parent)
        // A temporary trigger's INSERT, UPDATE and DELETE name their table unqualified (it is found in main).
        let written = try q(key.child)
        let from = try key.from.map(q)
        let pk = try to.map(q)
        let refuse = "SELECT RAISE(ABORT, 'FOREIGN KEY constraint failed')"
        func pairs(_ a: [String], _ row: String, _ b: [String]) -> String {
            zip(a, b).map { "\($0) = \(row).\($1)" }.joined(separator: " AND ")
        }
        // A child row with a NULL in its key references nothing (MATCH SIMPLE).
        let present = from.map { "NEW.\($0) IS NOT NULL" }.joined(separator: " AND ")
        let orphan = "\(present) AND NOT EXISTS (SELECT 1 FROM \(parent) WHERE \(pairs(pk, "NEW", from)))"
        let children = "SELECT 1 FROM \(child) WHERE \(pairs(from, "OLD", pk))"
        let changedKey = zip(pk, pk).map { "OLD.\($0) IS NOT NEW.\($1)" }.joined(separator: " OR ")
        let name = { (kind: String) in "strata_fk_\(n)_\(kind)" }
        var out: [(String, String)] = []
        func add(_ kind: String, _ body: String) throws {
            out.append((name(kind), "CREATE TEMP TRIGGER \(try q(name(kind))) \(body)"))
        }
        try add("insert", "AFTER INSERT ON \(child) FOR EACH ROW WHEN \(orphan) BEGIN \(refuse); END")
        try add(
            "update",
            "AFTER UPDATE OF \(from.joined(separator: ", ")) ON \(child) FOR EACH ROW WHEN \(orphan) "
                + "BEGIN \(refuse); END")
        let onDelete: String
        switch key.onDelete {
        case "CASCADE": onDelete = "BEGIN DELETE FROM \(written) WHERE \(pairs(from, "OLD", pk)); END"
        case "SET NULL":
            let set = from.map { "\($0) = NULL" }.joined(separator: ", ")
            onDelete = "BEGIN UPDATE \(written) SET \(set) WHERE \(pairs(from, "OLD", pk)); END"
        case "SET DEFAULT":
            let defaults = try key.from.map { column -> String in
                let found = try rows(
                    "SELECT dflt_value FROM pragma_table_info(?1) WHERE name = ?2",
                    [
                        .text(key.child), .text(column),
                    ])
                if case .text(let d)? = found.first?.first { return "\(try q(column)) = \(d)" }
                return "\(try q(column)) = NULL"
            }
            onDelete =
                "BEGIN UPDATE \(written) SET \(defaults.joined(separator: ", ")) WHERE \(pairs(from, "OLD", pk)); END"
        default:  // NO ACTION, RESTRICT
            onDelete = "WHEN EXISTS (\(children)) BEGIN \(refuse); END"
        }
        try add("delete", "AFTER DELETE ON \(parent) FOR EACH ROW \(onDelete)")
        let onUpdate: String
        switch key.onUpdate {
        case "CASCADE":
            let set = zip(from, pk).map { "\($0) = NEW.\($1)" }.joined(separator: ", ")
            onUpdate = "WHEN \(changedKey) BEGIN UPDATE \(written) SET \(set) WHERE \(pairs(from, "OLD", pk)); END"
        case "SET NULL":
            let set = from.map { "\($0) = NULL" }.joined(separator: ", ")
            onUpdate = "WHEN \(changedKey) BEGIN UPDATE \(written) SET \(set) WHERE \(pairs(from, "OLD", pk)); END"
        default:
            onUpdate = "WHEN (\(changedKey)) AND EXISTS (\(children)) BEGIN \(refuse); END"
        }
        try add(
            "rekey", "AFTER UPDATE OF \(pk.joined(separator: ", ")) ON \(parent) FOR EACH ROW \(onUpdate)")
        return out
    }
}
