// FuzzMemoryCondition: libFuzzer target for the memory driver's condition evaluation over random rows.
import Foundation
import FuzzSupport
import Strata
import StrataMemory

@Model(table: "cell")
struct Cell {
    var id: Int64?
    var n: Int64?
    var x: Double?
    var s: String?
    var b: Bool?
    var d: Date?
    var blob: Data?
}

private let database: Database = {
    let db = Database(driver: MemoryDriver())
    if case .failure(let error) = blocking({ try await db.migrate(Cell.self) }) {
        fuzzFailure("migration failed: \(error)")
    }
    return db
}()

private let columns = ["id", "n", "x", "s", "b", "d", "blob"]

/// Fills the table with the input's rows, then checks that for each random condition p the rows where
/// p, NOT p and p IS NULL hold partition the table, and that p fails exactly when NOT p does.
public func fuzzMemoryCondition(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    var rows: [Cell] = []
    for _ in 0..<input.choose(8) {
        rows.append(
            Cell(
                n: input.bool() ? nil : input.interestingInt64(), x: input.bool() ? nil : input.double(),
                s: input.bool() ? nil : input.string(max: 4), b: input.bool() ? nil : input.bool(),
                d: input.bool() ? nil : Date(timeIntervalSince1970: Double(input.choose(4))),
                blob: input.bool() ? nil : Data(input.data(max: 3))))
    }
    var conditions: [SQLExpression] = []
    for _ in 0..<(1 + input.choose(4)) { conditions.append(expression(&input, depth: 3)) }
    let rowsToSave = rows
    let conditionsToRun = conditions
    let result = blocking { () async throws -> Void in
        try await database.withConnection { tx in
            _ = try Cell.deleteAll(tx)
            for var row in rowsToSave {
                do { try row.save(tx) } catch let error as StrataError { _ = error.description }  // e.g. NUL in text
            }
            let total = try Cell.query(on: tx).count()
            for p in conditionsToRun { try check(p, total: total, tx) }
        }
    }
    if case .failure(let error) = result, !(error is StrataError) {
        fuzzFailure("untyped error \(type(of: error)): \(error)")
    }
    return 0
}

private func ids(_ e: SQLExpression, _ tx: Transaction) -> Result<[Int64?], StrataError> {
    do {
        let found = try Cell.query(on: tx).where(Condition(e)).values(\.id)
        let counted = try Cell.query(on: tx).where(Condition(e)).count()
        if counted != found.count { fuzzFailure("count() \(counted) ≠ \(found.count) rows for \(e)") }
        return .success(found)
    } catch let error as StrataError {
        return .failure(error)
    } catch {
        fuzzFailure("untyped error \(type(of: error)): \(error)")
    }
}

private func check(_ p: SQLExpression, total: Int, _ tx: Transaction) throws {
    let yes = ids(p, tx)
    let no = ids(.not(p), tx)
    let unknown = ids(.isNull(p), tx)
    switch (yes, no, unknown) {
    case (.success(let y), .success(let n), .success(let u)):
        let all = y + n + u
        if all.count != total || Set(all).count != total {
            fuzzFailure("p, NOT p, p IS NULL select \(y.count)+\(n.count)+\(u.count) of \(total) rows for \(p)")
        }
    case (.failure, .failure, _): break
    default:
        fuzzFailure("p and NOT p disagree on failing: \(yes) / \(no) for \(p)")
    }
}

private func expression(_ input: inout FuzzInput, depth: Int) -> SQLExpression {
    func value(_ input: inout FuzzInput) -> DatabaseValue {
        input.choose(6) == 0
            ? input.value()
            : input.pick([
                .integer(Int64(Int8(bitPattern: input.byte()))), .double(input.double()), .text(input.string(max: 3)),
                .bool(input.bool()), .null, .date(Date(timeIntervalSince1970: Double(input.choose(4)))),
                .blob(Data(input.data(max: 2))),
            ])
    }
    switch input.choose(depth <= 0 ? 3 : 12) {
    case 0: return .column(input.pick(columns))
    case 1: return .value(value(&input))
    case 2: return .constant(input.bool())
    case 3, 4:
        let op = input.pick([ComparisonOperator.equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual])
        return .compare(op, expression(&input, depth: depth - 1), expression(&input, depth: depth - 1))
    case 5: return .and((0..<input.choose(4)).map { _ in expression(&input, depth: depth - 1) })
    case 6: return .or((0..<input.choose(4)).map { _ in expression(&input, depth: depth - 1) })
    case 7: return .not(expression(&input, depth: depth - 1))
    case 8: return .isNull(expression(&input, depth: depth - 1), negated: input.bool())
    case 9:
        return .inList(
            expression(&input, depth: depth - 1), (0..<input.choose(4)).map { _ in value(&input) },
            negated: input.bool())
    case 10:
        return .like(
            .column(input.pick(columns)), input.string(max: 4), caseInsensitive: input.bool(), negated: input.bool())
    default:
        return .between(
            expression(&input, depth: depth - 1), expression(&input, depth: depth - 1),
            expression(&input, depth: depth - 1), negated: input.bool())
    }
}
