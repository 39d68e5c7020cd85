// MariaDBArithmeticUpsertTests: the exact SQL of guarded division and integer DIV, their typed errors on a real
// server, and upserts on a table with a second unique key run row by row (locked read, INSERT or UPDATE).
import Foundation
import Strata
import StrataMariaDB
import Testing

@Suite("MariaDB arithmetic and upserts")
struct MariaDBArithmeticUpsertTests {
    /// The guard of a divisor bound as `?` under the column `dividend`.
    private static func guardSQL(_ dividend: String) -> String {
        "CASE WHEN EXP(7777 * (? = 0 AND `\(dividend)` IS NOT NULL)) THEN ? END"
    }

    @Test("integer / is DIV, double / and % keep their operator; each divisor is guarded and bound twice")
    func guardedDivisionSQL() throws {
        let dialect = MariaDBDialect()
        let integer = Select(
            table: "t", selection: .columns(["id"]),
            filter: .compare(
                .equal, .typed(.arithmetic(.divide, .column("views"), .value(.integer(2))), as: .integer),
                .value(.integer(-2))))
        let rendered = try SQLRenderer.render(.select(integer), dialect: dialect)
        #expect(rendered.sql == "SELECT `id` FROM `t` WHERE ((`views` DIV " + Self.guardSQL("views") + ") = ?)")
        #expect(rendered.binds == [.integer(2), .integer(2), .integer(-2)])
        #expect(SQLRenderer.binds(of: .select(integer), dialect: dialect) == rendered.binds)
        let double = Select(
            table: "t", selection: .columns(["id"]),
            filter: .compare(
                .greater, .arithmetic(.divide, .column("ratio"), .column("step")), .value(.double(1))))
        let quotient = "(`ratio` / CASE WHEN EXP(7777 * (`step` = 0 AND `ratio` IS NOT NULL)) THEN `step` END)"
        #expect(
            try SQLRenderer.render(.select(double), dialect: dialect).sql
                == "SELECT `id` FROM `t` WHERE (CASE WHEN EXP(7779 * (" + quotient + " = 0 AND `ratio` <> 0)) THEN "
                + quotient + " END > ?)")
        #expect(SQLRenderer.binds(of: .select(double), dialect: dialect) == [.double(1)])
        let product = Select(
            table: "t", selection: .columns(["id"]),
            filter: .compare(
                .greater, .arithmetic(.multiply, .column("ratio"), .value(.double(2))), .value(.double(1))))
        let p = try SQLRenderer.render(.select(product), dialect: dialect)
        #expect(
            p.sql
                == "SELECT `id` FROM `t` WHERE (CASE WHEN EXP(7779 * ((`ratio` * ?) = 0 AND `ratio` <> 0 AND ? <> 0))"
                + " THEN (`ratio` * ?) END > ?)")
        #expect(p.binds == [.double(2), .double(2), .double(2), .double(1)])
        #expect(SQLRenderer.binds(of: .select(product), dialect: dialect) == p.binds)
        let remainder = Select(
            table: "t", selection: .columns(["id"]),
            filter: .compare(
                .equal, .arithmetic(.remainder, .column("views"), .value(.integer(3))), .value(.integer(1))))
        let r = try SQLRenderer.render(.select(remainder), dialect: dialect)
        #expect(r.sql == "SELECT `id` FROM `t` WHERE ((`views` % " + Self.guardSQL("views") + ") = ?)")
        #expect(SQLRenderer.binds(of: .select(remainder), dialect: dialect) == r.binds)
        let sum = Select(
            table: "t", selection: .columns(["id"]),
            filter: .compare(.equal, .arithmetic(.add, .column("views"), .value(.integer(1))), .value(.integer(1))))
        #expect(
            try SQLRenderer.render(.select(sum), dialect: dialect).sql
                == "SELECT `id` FROM `t` WHERE ((`views` + ?) = ?)")
    }

    @Test("÷0 and Int64.min DIV -1 are typed arithmetic errors with the other drivers' reasons; -5 DIV 2 is -2")
    func guardedDivisionErrors() async throws {
        let db = try await MariaDBTestServer.freshDatabase("strata_arith")
        defer { db.close() }
        _ = try await db.unsafeRawExecute("CREATE TABLE t (id BIGINT PRIMARY KEY, views BIGINT, ratio DOUBLE)")
        _ = try await db.unsafeRawExecute(
            "INSERT INTO t VALUES (1, -5, 7.5), (2, 7, 1.0), (3, -9223372036854775808, 0.5)")
        let url = try DatabaseURL(try MariaDBTestServer.baseURL + "/strata_arith", drivers: [.mariadb])
        let connection = try MariaDBDriver(options: try MariaDBConnectionOptions(url: url)).connect()
        func ids(_ filter: SQLExpression) throws -> [Int64?] {
            var out: [Int64?] = []
            let s = Select(table: "t", selection: .columns(["id"]), filter: filter, order: [Ordering("id")])
            _ = try connection.execute(.select(s)) { out.append($0.int64(at: 0)) }
            return out
        }
        func reason(_ filter: SQLExpression) -> String? {
            do {
                _ = try ids(filter)
                return nil
            } catch StrataError.arithmeticError(_, let reason) {
                return reason
            } catch {
                return "\(error)"
            }
        }
        let intDiv = { (l: SQLExpression, r: Int64) -> SQLExpression in
            .typed(.arithmetic(.divide, l, .value(.integer(r))), as: .integer)
        }
        #expect(try ids(.compare(.equal, intDiv(.column("views"), 2), .value(.integer(-2)))) == [1])
        #expect(try ids(.compare(.equal, intDiv(.column("views"), 2), .value(.integer(3)))) == [2])
        #expect(
            try ids(.compare(.equal, .arithmetic(.divide, .column("ratio"), .value(.double(2))), .value(.double(3.75))))
                == [1])
        #expect(reason(.compare(.greater, intDiv(.column("views"), 0), .value(.integer(1)))) == "division by zero")
        #expect(
            reason(.compare(.greater, .arithmetic(.divide, .column("ratio"), .value(.double(0))), .value(.double(1))))
                == "division by zero")
        #expect(
            reason(
                .compare(.equal, .arithmetic(.remainder, .column("views"), .value(.integer(0))), .value(.integer(1))))
                == "division by zero")
        #expect(reason(.compare(.greater, intDiv(.column("views"), -1), .value(.integer(0)))) == "integer out of range")
        #expect(
            reason(
                .compare(.greater, .arithmetic(.multiply, .column("ratio"), .value(.double(1e308))), .value(.double(0)))
            )
                == "double out of range (overflow)")
        #expect(
            try ids(
                .compare(.equal, .arithmetic(.remainder, .column("views"), .value(.integer(-1))), .value(.integer(0))))
                == [1, 2, 3], "Int64.min % -1 is 0")
        // A double product or quotient that underflows to 0 is an error, as on the other drivers; 0 times a tiny
        // value is 0.
        let tiny = SQLExpression.value(.double(1e-200))
        #expect(
            reason(
                .compare(
                    .greater, .arithmetic(.multiply, .arithmetic(.multiply, .column("ratio"), tiny), tiny),
                    .value(.double(0)))) == "double out of range (underflow)")
        #expect(
            reason(
                .compare(
                    .greater,
                    .arithmetic(
                        .divide, .arithmetic(.divide, .column("ratio"), .value(.double(1e300))),
                        .value(.double(1e300))), .value(.double(0)))) == "double out of range (underflow)")
        #expect(
            try ids(
                .compare(
                    .equal, .arithmetic(.multiply, .arithmetic(.subtract, .column("ratio"), .column("ratio")), tiny),
                    .value(.double(0)))) == [1, 2, 3], "0 times a tiny value is 0")
        // A NULL dividend over a zero divisor is NULL, not an error, as on the other drivers; and the guard reads
        // the dividend, so a query with no row to divide answers instead of failing on a constant MariaDB folds
        // (found by seed 2130143564: `parent_id % 0` over a table with no row).
        let remainderOfZero = SQLExpression.compare(
            .equal, .arithmetic(.remainder, .column("views"), .value(.integer(0))), .value(.integer(1)))
        _ = try await db.unsafeRawExecute("INSERT INTO t VALUES (4, NULL, NULL)")
        #expect(try ids(.and([.compare(.greater, .column("id"), .value(.integer(3))), remainderOfZero])) == [])
        _ = try await db.unsafeRawExecute("DELETE FROM t")
        #expect(try ids(remainderOfZero) == [])
        #expect(try ids(.compare(.greater, intDiv(.column("views"), 0), .value(.integer(1)))) == [])
        try await MariaDBTestServer.dropDatabase("strata_arith")
    }

    @Test("an upsert on a table with a second unique key inserts, updates on its target only, and fails whole")
    func upsertWithSecondUniqueKey() async throws {
        let db = try await MariaDBTestServer.freshDatabase("strata_upsert_rows")
        defer { db.close() }
        _ = try await db.unsafeRawExecute(
            "CREATE TABLE sku (id BIGINT AUTO_INCREMENT PRIMARY KEY, code VARCHAR(20) UNIQUE, "
                + "barcode VARCHAR(20) UNIQUE, name VARCHAR(20))")
        let url = try DatabaseURL(try MariaDBTestServer.baseURL + "/strata_upsert_rows", drivers: [.mariadb])
        let connection = try MariaDBDriver(options: try MariaDBConnectionOptions(url: url)).connect()
        func upsert(_ rows: [[DatabaseValue]], _ action: OnConflict.Action) throws -> [DatabaseValue] {
            var ids: [DatabaseValue] = []
            _ = try connection.execute(
                .insert(
                    Insert(
                        table: "sku", columns: ["code", "barcode", "name"], rows: rows, returning: "id",
                        onConflict: OnConflict(target: ["code"], action: action)))
            ) { ids.append($0.value(at: 0)) }
            return ids
        }
        func rows() throws -> [String] {
            var out: [String] = []
            let s = Select(
                table: "sku", selection: .columns(["id", "code", "barcode", "name"]), order: [Ordering("id")])
            _ = try connection.execute(.select(s)) { r in
                out.append(
                    (0..<4).map { n -> String in
                        switch r.value(at: n) {
                        case .integer(let i): return String(i)
                        case .text(let t): return t
                        case let v: return v.summary
                        }
                    }.joined(separator: ":"))
            }
            return out
        }
        let update = OnConflict.Action.update(set: ["barcode", "name"], increment: [])
        #expect(
            try upsert([[.text("A"), .text("1"), .text("apple")], [.text("B"), .text("2"), .text("banana")]], update)
                == [.integer(1), .integer(2)])
        // A1 updates by its code and hands back its id, in input order; C is inserted.
        #expect(
            try upsert(
                [[.text("C"), .text("3"), .text("cherry")], [.text("A"), .text("9"), .text("apricot")]], update)
                == [.integer(3), .integer(1)])
        let before = try rows()
        // D would take B's barcode: a unique violation naming barcode, not an update of B; C's update is undone.
        do {
            _ = try upsert(
                [[.text("C"), .text("7"), .text("cola")], [.text("D"), .text("2"), .text("date")]], update)
            Issue.record("expected a unique violation")
        } catch StrataError.uniqueViolation(let table, let columns) {
            #expect(table == "sku")
            #expect(columns == ["barcode"])
        }
        #expect(try rows() == before, "the failed upsert left every row as it was")
        #expect(!connection.isInTransaction, "its own transaction ended")
        // DO NOTHING hands back inserted rows only, as RETURNING does on PostgreSQL.
        let kept = try upsert(
            [[.text("A"), .text("8"), .text("x")], [.text("E"), .text("5"), .text("elder")]], .nothing)
        #expect(kept.count == 1 && kept != [.integer(1)], "E's id only: \(kept)")
        #expect(try rows().contains { $0.hasSuffix(":A:9:apricot") }, "A kept as it was")
        // Inside a transaction, a failure is undone alone and the transaction goes on.
        _ = try connection.execute(.begin) { _ in }
        _ = try upsert([[.text("F"), .text("6"), .text("fig")]], update)
        #expect(throws: StrataError.self) { try upsert([[.text("G"), .text("6"), .text("grape")]], update) }
        #expect(connection.isInTransaction)
        _ = try connection.execute(.commit) { _ in }
        #expect(try rows().contains { $0.hasSuffix(":F:6:fig") })
        #expect(!(try rows().contains { $0.contains(":G:") }))
        try await MariaDBTestServer.dropDatabase("strata_upsert_rows")
    }
}

@Suite("MariaDB unordered rank")
struct MariaDBUnorderedRankTests {
    @Test("RANK and DENSE_RANK without an order are written ORDER BY NULL (MariaDB refuses them, 4018): every row 1")
    func unorderedRank() async throws {
        let select = Select(
            table: "t",
            selection: .items([
                .column(ColumnRef("id")), .window(WindowFunction(.rank, partition: [ColumnRef("g")])),
                .window(WindowFunction(.denseRank)),
            ]),
            order: [Ordering("id")])
        #expect(
            try SQLRenderer.render(.select(select), dialect: MariaDBDialect()).sql
                == "SELECT `id`, RANK() OVER (PARTITION BY `g` ORDER BY NULL), "
                + "DENSE_RANK() OVER (PARTITION BY `g` ORDER BY NULL) "
                + "FROM `t` ORDER BY `id` ASC")
        let db = try await MariaDBTestServer.freshDatabase("strata_rank")
        defer { db.close() }
        _ = try await db.unsafeRawExecute("CREATE TABLE t (id BIGINT PRIMARY KEY, g BIGINT)")
        _ = try await db.unsafeRawExecute("INSERT INTO t VALUES (1, 1), (2, 1), (3, 2)")
        let url = try DatabaseURL(try MariaDBTestServer.baseURL + "/strata_rank", drivers: [.mariadb])
        let connection = try MariaDBDriver(options: try MariaDBConnectionOptions(url: url)).connect()
        var ranks: [[Int64?]] = []
        _ = try connection.execute(.select(select)) { r in ranks.append([r.int64(at: 1), r.int64(at: 2)]) }
        #expect(ranks == [[1, 1], [1, 1], [1, 1]])
        try await MariaDBTestServer.dropDatabase("strata_rank")
    }
}
