// CompositeKeyFind: the composite-key workload: lookups of rows keyed by two columns, each read into its model.
import CSQLite
import Strata

/// An order line keyed by its order and product (two integer columns), as an app keys a join table.
@Model(table: "bench_line", primaryKey: ["orderID", "productID"])
struct BenchLine {
    var orderID: Int64
    var productID: Int64
    var quantity: Int
    var price: Double
    var note: String
}

/// `SELECT order_id, product_id, quantity, price, note FROM bench_line WHERE ((order_id = ?) AND (product_id = ?))`:
/// the statement Strata renders for `find(BenchLine.ID(orderID:productID:))` on SQLite, written unquoted for
/// libsqlite3. 10,000 lines (1,000 orders of 10 products); 5,000 lookups, every tenth of a line that is not there.
enum CompositeKeyFind {
    /// Orders in the table.
    static let orders = 1_000
    /// Products per order.
    static let products = 10
    /// Lookups per timed run.
    static let lookups = 5_000

    static let sql =
        "SELECT order_id, product_id, quantity, price, note FROM bench_line"
        + " WHERE ((order_id = ?) AND (product_id = ?))"

    /// Line `k` of the table.
    static func line(_ k: Int) -> BenchLine {
        BenchLine(
            orderID: Int64(k / products), productID: Int64(k % products), quantity: k % 7 + 1,
            price: Double(k % 1_000) / 4, note: "line-\(k)")
    }

    /// The key of lookup `k`: spread over the table, and one in ten past the last product (no row).
    static func key(_ k: Int) -> (order: Int64, product: Int64) {
        let n = (k &* 7_919) % (orders * products)
        return (Int64(n / products), k % 10 == 9 ? Int64(products) : Int64(n % products))
    }

    /// The fields a lookup read: order, product, quantity, price, note.
    typealias Found = (order: Int64, product: Int64, quantity: Int, price: Double, note: String)

    /// Adds one line found (or none).
    static func add(_ line: Found?, to d: inout Digest) {
        var h = Hasher64()
        if let line {
            h.add(UInt64(bitPattern: line.order))
            h.add(UInt64(bitPattern: line.product))
            h.add(UInt64(bitPattern: Int64(line.quantity)))
            h.add(line.price.bitPattern)
            h.add(line.note)
        } else {
            h.add(0xdead)
        }
        d = Digest(value: d.value &+ h.finish(), rows: d.rows + 1)
    }
}

extension StrataContender {
    /// Creates and fills `bench_line` unless it holds the workload's rows already.
    func prepareLines() async throws {
        try await db.migrate(BenchLine.self)
        if try await BenchLine.query(on: db).count() == CompositeKeyFind.orders * CompositeKeyFind.products { return }
        try await db.withConnection { tx in _ = try BenchLine.deleteAll(tx) }
        var lines = (0..<CompositeKeyFind.orders * CompositeKeyFind.products).map(CompositeKeyFind.line)
        try await BenchLine.insertAll(&lines, on: db)
    }

    /// The lookups through `find`, in one read transaction.
    func compositeKeyFinds() async throws -> Sample {
        var d = Digest()
        return try await timedAsync(
            {
                d = Digest()
                try await db.transaction { tx in
                    for k in 0..<CompositeKeyFind.lookups {
                        let key = CompositeKeyFind.key(k)
                        let line = try BenchLine.find(BenchLine.ID(orderID: key.order, productID: key.product), tx)
                        CompositeKeyFind.add(
                            line.map { ($0.orderID, $0.productID, $0.quantity, $0.price, $0.note) }, to: &d)
                    }
                }
            }, digest: { d })
    }
}

extension SQLiteRawContender {
    /// The same lookups through libsqlite3: ``CompositeKeyFind/sql`` prepared once, the key bound per lookup, the
    /// row's five columns read.
    func compositeKeyFinds() async throws -> Sample {
        let s = try db.statement(CompositeKeyFind.sql)
        let (begin, commit) = (try db.statement("BEGIN"), try db.statement("COMMIT"))
        var d = Digest()
        return try timed(
            {
                d = Digest()
                try db.stepDone(begin)
                for k in 0..<CompositeKeyFind.lookups {
                    let key = CompositeKeyFind.key(k)
                    sqlite3_bind_int64(s, 1, key.order)
                    sqlite3_bind_int64(s, 2, key.product)
                    if sqlite3_step(s) == SQLITE_ROW {
                        let note = sqlite3_column_text(s, 4).map { String(cString: $0) } ?? ""
                        CompositeKeyFind.add(
                            (
                                sqlite3_column_int64(s, 0), sqlite3_column_int64(s, 1), Int(sqlite3_column_int64(s, 2)),
                                sqlite3_column_double(s, 3), note
                            ), to: &d)
                    } else {
                        CompositeKeyFind.add(nil, to: &d)
                    }
                    sqlite3_reset(s)
                }
                try db.stepDone(commit)
            }, digest: { d })
    }
}
