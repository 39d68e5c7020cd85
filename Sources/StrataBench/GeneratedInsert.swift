// GeneratedInsert: the generated workload: inserts of a model with a stored generated column, each value read back.
import CSQLite
import Strata

/// An order line whose `total` the database computes (`price * quantity`, checked for overflow).
@Model(table: "bench_priced")
struct BenchPriced {
    var id: Int64?
    var price: Int64
    var quantity: Int64
    var note: String
    @Generated var total: Int64 = 0
    static var generatedColumns: [GeneratedColumn<BenchPriced>] {
        [GeneratedColumn(\.total, as: \.price * \.quantity)]
    }
}

/// `INSERT INTO bench_priced (price, quantity, note) VALUES (?, ?, ?)`, then `SELECT total FROM bench_priced WHERE
/// id = ?` for the row's id: what `save` sends on SQLite to read a generated column back, written unquoted for
/// libsqlite3, whose connection registers the same checked `strata_mul` the table's expression calls. (`INSERT …
/// RETURNING` is the other way to read it back; SQLite 3.40 runs it slower than the two statements.)
enum GeneratedInsert {
    static let insert = "INSERT INTO bench_priced (price, quantity, note) VALUES (?, ?, ?)"
    static let readBack = "SELECT total FROM bench_priced WHERE id = ?"

    /// Line `k`'s price, quantity and note.
    static func line(_ k: Int) -> (price: Int64, quantity: Int64, note: String) {
        (Int64(k % 997 + 1), Int64(k % 13 + 1), "line-\(k)")
    }

    /// The written lines: ids relative to the first, each with its price, quantity and the total read back.
    static func digest(_ lines: [(id: Int64, price: Int64, quantity: Int64, total: Int64)]) -> Digest {
        var d = Digest()
        let base = lines.first?.id ?? 0
        for line in lines {
            var h = Hasher64()
            h.add(UInt64(bitPattern: line.id - base))
            h.add(UInt64(bitPattern: line.price))
            h.add(UInt64(bitPattern: line.quantity))
            h.add(UInt64(bitPattern: line.total))
            d = Digest(value: d.value &+ h.finish(), rows: d.rows + 1)
        }
        return d
    }

    /// ``digest(_:)`` of saved models.
    static func digest(_ lines: [BenchPriced]) -> Digest {
        digest(lines.map { ($0.id ?? 0, $0.price, $0.quantity, $0.total) })
    }
}

extension StrataContender {
    /// Creates `bench_priced` if needed and empties it.
    func preparePriced() async throws {
        try await db.migrate(BenchPriced.self)
        try await db.withConnection { tx in _ = try BenchPriced.deleteAll(tx) }
    }

    /// What `bench_priced` holds, in id order.
    func pricedDigest() async throws -> Digest {
        GeneratedInsert.digest(try await BenchPriced.query(on: db).order(\.id).all())
    }

    /// `save` of each line in one transaction: an INSERT and the generated total read back into the model.
    func generatedInserts(_ count: Int) async throws -> Sample {
        var lines = (0..<count).map { k in
            let l = GeneratedInsert.line(k)
            return BenchPriced(price: l.price, quantity: l.quantity, note: l.note)
        }
        return try await timedAsync(
            {
                try await db.transaction { tx in
                    for i in lines.indices { try lines[i].save(tx) }
                }
            }, digest: { GeneratedInsert.digest(lines) })
    }
}

extension SQLiteRawContender {
    /// The same lines through libsqlite3: the INSERT and the SELECT of the total prepared once, in one transaction.
    func generatedInserts(_ count: Int) async throws -> Sample {
        db.registerCheckedMultiply()
        let (insert, readBack) = (try db.statement(GeneratedInsert.insert), try db.statement(GeneratedInsert.readBack))
        let (begin, commit) = (try db.statement("BEGIN IMMEDIATE"), try db.statement("COMMIT"))
        let input = (0..<count).map(GeneratedInsert.line)
        var lines: [(id: Int64, price: Int64, quantity: Int64, total: Int64)] = []
        lines.reserveCapacity(count)
        return try timed(
            {
                lines.removeAll(keepingCapacity: true)
                try db.stepDone(begin)
                for l in input {
                    sqlite3_bind_int64(insert, 1, l.price)
                    sqlite3_bind_int64(insert, 2, l.quantity)
                    var note = l.note
                    try note.withUTF8 { text in  // bound SQLITE_STATIC: SQLite reads these bytes, no copy
                        RawSQLite.bindText(text, insert, 3)
                        try db.stepDone(insert)
                    }
                    let id = sqlite3_last_insert_rowid(db.handle)
                    sqlite3_bind_int64(readBack, 1, id)
                    guard sqlite3_step(readBack) == SQLITE_ROW else { throw BenchError("no row \(id)") }
                    lines.append((id, l.price, l.quantity, sqlite3_column_int64(readBack, 0)))
                    sqlite3_reset(readBack)
                }
                try db.stepDone(commit)
            }, digest: { GeneratedInsert.digest(lines) })
    }
}

extension SQLiteRawContender {
    /// What `bench_priced` holds, in id order, read through libsqlite3.
    func pricedDigest() async throws -> Digest {
        let s = try db.statement("SELECT id, price, quantity, total FROM bench_priced ORDER BY id")
        var lines: [(id: Int64, price: Int64, quantity: Int64, total: Int64)] = []
        while sqlite3_step(s) == SQLITE_ROW {
            lines.append(
                (
                    sqlite3_column_int64(s, 0), sqlite3_column_int64(s, 1), sqlite3_column_int64(s, 2),
                    sqlite3_column_int64(s, 3)
                ))
        }
        sqlite3_reset(s)
        return GeneratedInsert.digest(lines)
    }
}

extension RawSQLite {
    /// Registers `strata_mul(a, b)` as a C program would write it: the product of two integers, NULL for a NULL,
    /// an error on overflow (the expression `bench_priced.total` calls it; Strata's driver registers its own).
    func registerCheckedMultiply() {
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS
        sqlite3_create_function_v2(handle, "strata_mul", 2, flags, nil, checkedMultiply, nil, nil, nil)
    }
}

private let checkedMultiply: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = {
    ctx, argc, argv in
    guard let ctx, let argv, argc == 2, let a = argv[0], let b = argv[1] else { return }
    if sqlite3_value_type(a) == SQLITE_NULL || sqlite3_value_type(b) == SQLITE_NULL { return sqlite3_result_null(ctx) }
    let (product, overflow) = sqlite3_value_int64(a).multipliedReportingOverflow(by: sqlite3_value_int64(b))
    if overflow { return sqlite3_result_error(ctx, "integer out of range", -1) }
    sqlite3_result_int64(ctx, product)
}
