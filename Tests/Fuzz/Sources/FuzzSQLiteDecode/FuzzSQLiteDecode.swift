// FuzzSQLiteDecode: libFuzzer target storing hostile values in a typeless SQLite table and decoding a model.
import Foundation
import FuzzSupport
import Strata
import StrataSQLite

/// One private in-memory database (one connection) with `hostile` created without STRICT or types, so
/// any storage class fits any column.
private let database: Database = {
    switch blocking({ () async throws -> Database in
        let db = try Database.open("sqlite::memory:", drivers: [.sqlite])
        let columns = Hostile.schema.columns.map { c in
            "\"\(c.name)\"" + (c.isPrimaryKey ? " INTEGER PRIMARY KEY" : "")
        }
        try await db.unsafeRawExecute("CREATE TABLE hostile (" + columns.joined(separator: ", ") + ")")
        return db
    }) {
    case .success(let db): return db
    case .failure(let error): fuzzFailure("setup failed: \(error)")
    }
}()

/// Values that look like what some column expects, so the parsers get past their first check.
private let nearMisses = [
    "2024-02-29 23:59:59.999999", "2024-13-01", "9999-12-31T23:59:60Z", "0000-00-00", "1970-01-01 24:00:00",
    "12345678901234567890.123456789", "1e400", "-0", "NaN", "00000000-0000-0000-0000-00000000000g",
    "6ba7b810-9dad-11d1-80b4-00c04fd430c8", "{\"x\":1,\"y\":2}", "{\"x\":1e400,\"y\":2}", "[\"a\",1]", "[]",
    "calm", "CALM", "http://[::1", "file:///tmp/x", "", "true", "1",
]

/// Writes the input's values over some columns of a valid row and reads the row back every way.
public func fuzzSQLiteDecode(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let columns = Hostile.schema.columns.filter { !$0.isPrimaryKey }.map(\.name)
    var writes: [(String, DatabaseValue)] = []
    for _ in 0..<(1 + input.choose(4)) {
        let value: DatabaseValue
        switch input.choose(8) {
        case 0: value = .null
        case 1: value = .integer(input.interestingInt64())
        case 2: value = .double(input.double())
        case 3: value = .blob(Data(input.data(max: 24)))
        case 4: value = .text(input.pick(nearMisses))
        case 5: value = .text(input.string())
        default: value = .text(input.rawText(max: 40))
        }
        writes.append((input.pick(columns), value))
    }
    let planned = writes
    let result = blocking { () async throws -> Void in
        try await database.withConnection { tx in try exercise(tx, planned) }
    }
    if case .failure(let error) = result, !(error is StrataError) {
        fuzzFailure("untyped error \(type(of: error)): \(error)")
    }
    return 0
}

private func exercise(_ tx: Transaction, _ writes: [(String, DatabaseValue)]) throws {
    _ = try tx.unsafeRawExecute("DELETE FROM hostile")
    var row = Hostile()
    try row.save(tx)
    guard let id = row.id else { fuzzFailure("save assigned no id") }
    for (column, value) in writes {
        do {
            _ = try tx.unsafeRawExecute("UPDATE hostile SET \"\(column)\" = ?", [Stored(databaseValue: value)])
        } catch let error as StrataError {
            _ = error.description  // a value the driver refuses to store (e.g. text with NUL)
        }
    }
    // The row as SQLite holds it, by column.
    guard let stored = try tx.unsafeRawExecute("SELECT * FROM hostile").first else {
        fuzzFailure("the row vanished")
    }
    let names = Hostile.schema.columnNames
    guard try Hostile.query(on: tx).count() == 1 else { fuzzFailure("count is not 1") }
    let decoded: Hostile
    do {
        guard let one = try Hostile.query(on: tx).first() else { fuzzFailure("first() found no row") }
        decoded = one
    } catch let error as StrataError {
        guard case .decodingFailed = error else { fuzzFailure("decoding threw \(error), not decodingFailed") }
        return
    }
    guard decoded.id == id else { fuzzFailure("decoded id \(String(describing: decoded.id)) ≠ \(id)") }
    // What decoded must be what was stored, for the types that keep a value as it is: no silent coercion.
    let written = decoded.databaseValues
    for (n, name) in names.enumerated() {
        let before = stored[n]
        let after = written[n]
        switch (before, after) {
        case (.integer(let i), .integer(let j)) where i == j: continue
        case (.integer(let i), .bool(let b)) where (i == 1) == b && (i == 0 || i == 1): continue
        case (.text(let s), .text(let t)) where s == t: continue
        case (.blob(let s), .blob(let t)) where s == t: continue
        case (.null, .null): continue
        case (.double(let d), .double(let e)) where d == e || Double(Float(d)) == e: continue
        case (.integer(let i), .double(let e)) where Double(i) == e || Double(Float(Double(i))) == e: continue
        case (.text, .text) where name == "url": continue  // URL keeps its own normal form
        case (.double(let d), .decimal(let x)) where Double(x.description) == d:
            continue  // a REAL decimal (what other tools write) reads as the shortest decimal that round-trips
        case (.text, .date), (.integer, .date), (.double, .date), (.text, .decimal), (.integer, .decimal),
            (.text, .uuid), (.blob, .uuid), (.text, .json), (.blob, .json):
            continue  // parsed into a richer type (a number as a date is seconds since 1970)
        default:
            fuzzFailure("column \(name): stored \(before.summary) decoded as \(after.summary)")
        }
    }
}
