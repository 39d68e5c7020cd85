// StatementGenerator: builds Statements and expressions from fuzz bytes, over a small pool of hostile names.
import Foundation
import FuzzSupport
import Strata

/// Draws statements whose identifiers come from `names` (hostile strings mixed with plain ones) and
/// whose raw fragments use only `x`, `?`, spaces and digits, so the checker knows every word.
struct StatementGenerator {
    var input: FuzzInput
    var names: [String] = []

    init(_ input: FuzzInput) {
        self.input = input
        names = ["id", "name", "t", "u"]
        for _ in 0..<(1 + self.input.choose(4)) { names.append(self.input.string(max: 10)) }
    }

    mutating func name() -> String { input.pick(names) }

    mutating func statement() -> Statement {
        switch input.choose(14) {
        case 0, 1, 2, 3: return .select(select())
        case 4, 5: return .insert(insert())
        case 6: return .update(Update(table: name(), assignments: assignments(), filter: optionalFilter()))
        case 7: return .delete(Delete(table: name(), filter: optionalFilter()))
        case 8: return .createTable(table())
        case 9: return .addColumn(table: name(), column())
        case 10: return .createIndex(table: name(), index())
        case 11: return .dropTable(name())
        case 12: return input.pick([.begin, .commit, .rollback])
        default:
            let n = name()
            return input.pick([.savepoint(n), .releaseSavepoint(n), .rollbackToSavepoint(n)])
        }
    }

    mutating func select() -> Select {
        var joins: [Join] = []
        for _ in 0..<input.choose(3) {
            let kind = input.pick([Join.Kind.inner, .left, .right, .full])
            joins.append(Join(kind, table: name(), alias: name(), on: expression(depth: 2)))
        }
        let selection: Select.Selection
        switch input.choose(3) {
        case 0: selection = .count
        case 1: selection = .columns((0..<input.choose(4)).map { _ in name() })
        default:
            selection = .refs((0..<input.choose(4)).map { _ in ColumnRef(name(), table: input.bool() ? name() : nil) })
        }
        let order = (0..<input.choose(3)).map { _ in
            Ordering(name(), input.bool() ? .ascending : .descending, table: input.bool() ? name() : nil)
        }
        return Select(
            table: name(), selection: selection, joins: joins, filter: optionalFilter(), order: order,
            limit: input.bool() ? Int(input.interestingInt64() % 1000) : nil,
            offset: input.bool() ? Int(input.interestingInt64() % 1000) : nil)
    }

    mutating func insert() -> Insert {
        let columns = (0..<input.choose(4)).map { _ in name() }
        let rows = (0..<input.choose(4)).map { _ in
            // Mostly well-formed rows, sometimes one value short or long.
            (0..<(columns.count + (input.choose(8) == 0 ? 1 : 0))).map { _ in input.value() }
        }
        return Insert(table: name(), columns: columns, rows: rows, returning: input.bool() ? name() : nil)
    }

    mutating func assignments() -> [Assignment] {
        (0..<input.choose(4)).map { _ in Assignment(name(), input.value()) }
    }

    mutating func optionalFilter() -> SQLExpression? { input.bool() ? expression(depth: 4) : nil }

    mutating func expression(depth: Int) -> SQLExpression {
        let leafOnly = depth <= 0
        switch input.choose(leafOnly ? 4 : 14) {
        case 0: return .column(name())
        case 1: return .column(name(), table: name())
        case 2: return .value(input.value())
        case 3: return .constant(input.bool())
        case 4:
            let op = input.pick([ComparisonOperator.equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual])
            return .compare(op, expression(depth: depth - 1), expression(depth: depth - 1))
        case 5: return .and((0..<input.choose(4)).map { _ in expression(depth: depth - 1) })
        case 6: return .or((0..<input.choose(4)).map { _ in expression(depth: depth - 1) })
        case 7: return .not(expression(depth: depth - 1))
        case 8: return .isNull(expression(depth: depth - 1), negated: input.bool())
        case 9:
            return .inList(
                expression(depth: depth - 1), (0..<input.choose(4)).map { _ in input.value() }, negated: input.bool())
        case 10:
            return .like(
                expression(depth: depth - 1), input.string(), caseInsensitive: input.bool(), negated: input.bool())
        case 11:
            return .between(
                expression(depth: depth - 1), expression(depth: depth - 1), expression(depth: depth - 1),
                negated: input.bool())
        case 12:
            var fragment = ""
            for _ in 0..<input.choose(8) { fragment += input.pick(["x", " ", "?", "1", "=", "(", ")"]) }
            let markers = fragment.filter { $0 == "?" }.count
            let count = input.choose(8) == 0 ? input.choose(4) : markers  // sometimes a mismatch
            return .unsafeRaw(fragment, (0..<count).map { _ in input.value() })
        default:
            return .column(name())
        }
    }

    mutating func column() -> TableColumn {
        let type = input.pick(ColumnType.allCases)
        let fill: DatabaseValue? = input.bool() ? input.value() : nil
        return TableColumn(
            name: name(), type: type, isNullable: input.bool(), isPrimaryKey: input.choose(6) == 0,
            schemaDefault: fill, backfill: input.bool() ? input.value() : nil)
    }

    mutating func index() -> Index {
        Index(
            columns: (0..<input.choose(3)).map { _ in name() }, unique: input.bool(), name: input.bool() ? name() : nil)
    }

    mutating func table() -> TableSchema {
        let columns = (0..<input.choose(5)).map { _ in column() }
        let keys = (0..<input.choose(2)).map { _ in
            ForeignKey(
                column: name(), references: name(), column: name(),
                onDelete: input.pick([ForeignKey.Action.cascade, .restrict, .setNull, .noAction]))
        }
        return TableSchema(name: name(), columns: columns, indexes: [], foreignKeys: keys)
    }
}
