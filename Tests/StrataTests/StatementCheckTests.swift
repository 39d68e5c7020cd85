// StatementCheckTests: each write and DDL rule of the core's one check, and which fault wins when two apply.
import Strata
import Testing

@Suite("StatementCheck: writes and DDL")
struct StatementCheckTests {
    static func check(_ s: Statement) throws(StrataError) { try StatementCheck.check(s) }
    static let key = TableColumn(name: "id", type: .integer, isNullable: true, isPrimaryKey: true)
    static let name = TableColumn(name: "name", type: .text, isNullable: false)

    @Test("an INSERT needs rows, one row without columns, and one value per column in every row")
    func insertShape() {
        #expect(throws: StrataError.invalidQuery("INSERT without rows")) {
            try Self.check(.insert(Insert(table: "t", columns: ["a"], rows: [])))
        }
        #expect(throws: StrataError.invalidQuery("multi-row INSERT without columns")) {
            try Self.check(.insert(Insert(table: "t", columns: [], rows: [[], []])))
        }
        #expect(throws: StrataError.invalidQuery("INSERT row has 1 values for 0 columns")) {
            try Self.check(.insert(Insert(table: "t", columns: [], rows: [[.integer(1)]])))
        }
        #expect(throws: StrataError.invalidQuery("INSERT row has 1 values for 2 columns")) {
            let rows: [[DatabaseValue]] = [[.integer(1), .integer(2)], [.integer(3)], [.integer(4)]]
            try Self.check(.insert(Insert(table: "t", columns: ["a", "b"], rows: rows)))
        }
        #expect(throws: Never.self) {
            try Self.check(.insert(Insert(table: "t", columns: [], rows: [[]])))
            try Self.check(.insert(Insert(table: "t", columns: ["a"], rows: [[.integer(1)], [.null]])))
        }
    }

    @Test("an upsert names its target and, when it updates, a column to set")
    func upsertClause() {
        let row: [[DatabaseValue]] = [[.text("x")]]
        #expect(throws: StrataError.invalidQuery("ON CONFLICT without target columns on t")) {
            let c = OnConflict(target: [], action: .nothing)
            try Self.check(.insert(Insert(table: "t", columns: ["a"], rows: row, onConflict: c)))
        }
        #expect(throws: StrataError.invalidQuery("ON CONFLICT DO UPDATE on t sets no column")) {
            let c = OnConflict(target: ["a"], action: .update(set: [], increment: []))
            try Self.check(.insert(Insert(table: "t", columns: ["a"], rows: row, onConflict: c)))
        }
        #expect(throws: Never.self) {
            let c = OnConflict(target: ["a"], action: .update(set: [], increment: ["v"]))
            try Self.check(.insert(Insert(table: "t", columns: ["a"], rows: row, onConflict: c)))
        }
    }

    @Test("the rows are checked before the upsert clause")
    func insertOrder() {
        let c = OnConflict(target: [], action: .update(set: [], increment: []))
        #expect(throws: StrataError.invalidQuery("INSERT without rows")) {
            try Self.check(.insert(Insert(table: "t", columns: ["a"], rows: [], onConflict: c)))
        }
        #expect(throws: StrataError.invalidQuery("INSERT row has 0 values for 1 columns")) {
            try Self.check(.insert(Insert(table: "t", columns: ["a"], rows: [[]], onConflict: c)))
        }
        #expect(throws: StrataError.invalidQuery("ON CONFLICT without target columns on t")) {
            try Self.check(.insert(Insert(table: "t", columns: ["a"], rows: [[.integer(1)]], onConflict: c)))
        }
    }

    @Test("a table names each column once; its key columns are integers, UUIDs or text, one or a composite key")
    func createTable() {
        #expect(throws: StrataError.invalidQuery("duplicate column name: name")) {
            try Self.check(.createTable(TableSchema(name: "t", columns: [Self.key, Self.name, Self.name])))
        }
        #expect(throws: Never.self, "two key columns are one composite key") {
            let other = TableColumn(name: "code", type: .text, isNullable: false, isPrimaryKey: true)
            try Self.check(.createTable(TableSchema(name: "t", columns: [Self.key, other])))
        }
        for type in [ColumnType.double, .bool, .blob] {
            #expect(throws: StrataError.invalidQuery("primary key id must be an integer, a UUID or text")) {
                let key = TableColumn(name: "id", type: type, isNullable: true, isPrimaryKey: true)
                try Self.check(.createTable(TableSchema(name: "t", columns: [key])))
            }
            #expect(throws: StrataError.invalidQuery("cannot add a PRIMARY KEY column")) {
                try Self.check(
                    .addColumn(table: "t", TableColumn(name: "id", type: type, isNullable: true, isPrimaryKey: true)))
            }
        }
        #expect(throws: Never.self) {
            for type in [ColumnType.integer, .uuid, .text] {
                let key = TableColumn(name: "id", type: type, isNullable: true, isPrimaryKey: true)
                try Self.check(.createTable(TableSchema(name: "t", columns: [key, Self.name])))
            }
            try Self.check(.addColumn(table: "t", TableColumn(name: "d", type: .double, isNullable: true)))
        }
    }

    @Test("a table's faults are found column by column, then in its composite key")
    func createTableOrder() {
        let real = TableColumn(name: "id", type: .double, isNullable: true, isPrimaryKey: true)
        let code = TableColumn(name: "code", type: .text, isNullable: false, isPrimaryKey: true)
        #expect(throws: StrataError.invalidQuery("duplicate column name: name")) {
            try Self.check(.createTable(TableSchema(name: "t", columns: [Self.name, Self.name, real])))
        }
        #expect(throws: StrataError.invalidQuery("primary key id must be an integer, a UUID or text")) {
            try Self.check(.createTable(TableSchema(name: "t", columns: [real, code, Self.name, Self.name])))
        }
        #expect(
            throws: StrataError.invalidValue(
                table: "t", column: "code", reason: "a generated column cannot be part of the primary key")
        ) {
            let generated = code.generated(as: .column("id"))
            try Self.check(.createTable(TableSchema(name: "t", columns: [Self.key, generated])))
        }
    }

    @Test("a wide table (past 32 columns, checked with a set) names each column once, its faults found in order")
    func wideTable() {
        let many = (0..<40).map { TableColumn(name: "c\($0)", type: .text, isNullable: true) }
        let real = TableColumn(name: "id", type: .double, isNullable: true, isPrimaryKey: true)
        #expect(throws: StrataError.invalidQuery("duplicate column name: c3")) {
            try Self.check(.createTable(TableSchema(name: "t", columns: many + [many[3], real])))
        }
        #expect(throws: StrataError.invalidQuery("primary key id must be an integer, a UUID or text")) {
            try Self.check(.createTable(TableSchema(name: "t", columns: many + [real, many[0]])))
        }
        // At 32 columns and under, each name is compared with those before it: the same answers.
        #expect(throws: StrataError.invalidQuery("duplicate column name: c0")) {
            try Self.check(.createTable(TableSchema(name: "t", columns: Array(many[0..<31]) + [many[0]])))
        }
        #expect(throws: Never.self) {
            try Self.check(.createTable(TableSchema(name: "t", columns: many)))
            try Self.check(.createTable(TableSchema(name: "t", columns: Array(many[0..<32]))))
        }
    }

    @Test("an index names at least one column")
    func createIndex() {
        #expect(throws: StrataError.invalidQuery("index t_idx has no columns")) {
            try Self.check(.createIndex(table: "t", Index(columns: [])))
        }
        #expect(throws: StrataError.invalidQuery("index by_nothing has no columns")) {
            try Self.check(.createIndex(table: "t", Index(columns: [], name: "by_nothing")))
        }
        #expect(throws: Never.self) { try Self.check(.createIndex(table: "t", Index(columns: ["a"]))) }
    }

    @Test("a SELECT's conditions are checked before its paging, a subquery in full where it appears")
    func selectOrder() {
        let dangling = SQLExpression.like(.column("a"), "x\\", caseInsensitive: false)
        let multi = Select(table: "u", selection: .columns(["a", "b"]), limit: -3)
        let inMulti = SQLExpression.inSubquery(.column("a"), multi, negated: false)
        #expect(
            throws: StrataError.invalidQuery(
                "IN subquery on u selects 2 columns (a, b); it must select exactly one")
        ) {
            try Self.check(.select(Select(table: "t", selection: .columns(["a"]), filter: inMulti, limit: -1)))
        }
        var one = multi
        one.selection = .columns(["a"])
        #expect(throws: StrataError.invalidQuery("negative limit -3")) {
            let f = SQLExpression.inSubquery(.column("a"), one, negated: false)
            try Self.check(.select(Select(table: "t", selection: .columns(["a"]), filter: f, limit: -1)))
        }
        #expect(throws: StrataError.invalidQuery("COALESCE without operands")) {
            try Self.check(.delete(Delete(table: "t", filter: .and([.coalesce([]), dangling]))))
        }
    }

    @Test("a qualified column names the main table or a join in scope; a join's ON sees the joins up to its own")
    func scopes() {
        let j1 = Join(
            .inner, table: "u", alias: "j1", on: .compare(.equal, .column("id"), .column("t_id", table: "j1")))
        #expect(throws: StrataError.invalidQuery("no joined table named j2")) {
            try Self.check(
                .select(
                    Select(
                        table: "t", selection: .refs([ColumnRef("a"), ColumnRef("b", table: "j2")]), joins: [j1])))
        }
        #expect(throws: StrataError.invalidQuery("column j1.b of a joined table outside a join")) {
            try Self.check(.select(Select(table: "t", selection: .columns(["a"]), filter: .column("b", table: "j1"))))
        }
        #expect(throws: StrataError.invalidQuery("column t.b of a joined table outside a join")) {
            try Self.check(
                .update(Update(table: "t", assignments: [Assignment("a", .null)], filter: .column("b", table: "t"))))
        }
        let ahead = Join(
            .inner, table: "u", alias: "j0", on: .compare(.equal, .column("id"), .column("x", table: "j1")))
        #expect(throws: StrataError.invalidQuery("no joined table named j1")) {
            try Self.check(.select(Select(table: "t", selection: .columns(["a"]), joins: [ahead, j1])))
        }
        let inner = Select(table: "u", selection: .columns(["id"]), filter: .column("b", table: "j1"))
        #expect(throws: StrataError.invalidQuery("column j1.b of a joined table outside a join")) {
            let f = SQLExpression.inSubquery(.column("id", table: "j1"), inner)
            try Self.check(.select(Select(table: "t", selection: .columns(["a"]), joins: [j1], filter: f)))
        }
        let refs = [ColumnRef("a", table: "t"), ColumnRef("name", table: "j1")]
        var ordered = Select(table: "t", selection: .refs(refs), joins: [j1])
        ordered.order = [Ordering("name", table: "j1"), Ordering("name", table: "t")]
        #expect(throws: Never.self) { try Self.check(.select(ordered)) }
        ordered.order.append(Ordering("name", table: "j3"))
        #expect(throws: StrataError.invalidQuery("no joined table named j3")) { try Self.check(.select(ordered)) }
    }

    @Test("the scope of qualified columns is checked after every other rule")
    func scopeLast() {
        let outside = SQLExpression.column("b", table: "j1")
        #expect(throws: StrataError.invalidQuery("negative limit -1")) {
            try Self.check(.select(Select(table: "t", selection: .columns(["a"]), filter: outside, limit: -1)))
        }
        #expect(throws: StrataError.invalidQuery("UPDATE without any column to set")) {
            try Self.check(.update(Update(table: "t", assignments: [], filter: outside)))
        }
        #expect(throws: StrataError.invalidQuery("column j1.b of a joined table outside a join")) {
            try Self.check(.delete(Delete(table: "t", filter: outside)))
        }
    }
}
