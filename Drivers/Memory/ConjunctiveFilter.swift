// ConjunctiveFilter: the common WHERE shape (an AND of simple column tests) evaluated in place, without copies.
import Strata

/// A condition that is an AND of simple tests on columns (`column op value`, `column IS [NOT] NULL`) and of
/// comparisons of a JSON path in a column with values (`json(doc, "size") >= lo AND json(doc, "size") < hi`).
///
/// Such a condition selects a row exactly when every test is TRUE, so three-valued logic reduces to
/// "NULL fails the test"; testing reads the row's storage through a pointer, copying nothing.
/// Any other condition shape yields nil and runs on the general evaluator.
struct ConjunctiveFilter {
    enum Test {
        case integer(column: Int, op: ComparisonOperator, value: Int64)
        case bool(column: Int, op: ComparisonOperator, value: Bool)
        case text(column: Int, op: ComparisonOperator, value: String)
        case other(column: Int, op: ComparisonOperator, value: DatabaseValue)
        case isNull(column: Int, negated: Bool)
        /// Any other test of one condition on the row (IN, LIKE, BETWEEN, a bool column).
        case condition(CompiledCondition)
        /// Adjacent comparisons of one JSON path's value (see ``ComputedValue/jsonPath``) with values: the path is
        /// read once for all of them (each comparison read it again, parsing the document each time).
        case path(ComputedValue, [(op: ComparisonOperator, value: DatabaseValue)])
        case never
    }

    let tests: [Test]

    init?(_ condition: CompiledCondition) {
        var tests: [Test] = []
        guard Self.collect(condition, into: &tests) else { return nil }
        self.tests = tests
    }

    private static func collect(_ condition: CompiledCondition, into tests: inout [Test]) -> Bool {
        switch condition {
        case .and(let items):
            for item in items where !collect(item, into: &tests) { return false }
            return true
        case .compare(let op, .column(let c), .value(let v)):
            tests.append(test(op, c, v))
            return true
        case .compare(let op, .value(let v), .column(let c)):
            tests.append(test(op.mirrored, c, v))
            return true
        case .compare(let op, .computed(let box), .value(let v)):
            return path(box.computed, op, v, into: &tests)
        case .compare(let op, .value(let v), .computed(let box)):
            return path(box.computed, op.mirrored, v, into: &tests)
        case .isNull(.column(let c), let negated):
            tests.append(.isNull(column: c, negated: negated))
            return true
        case .inList(.column, _, _), .like(.column, _, _), .operand(.column),
            .between(.column, .value, .value, _):
            tests.append(.condition(condition))
            return true
        case .constant(true):
            return true
        case .constant(false):
            tests.append(.never)
            return true
        default:
            return false
        }
    }

    /// `path op v` as the first test, or joined to the first when that one compares the same path of the same column;
    /// false (the general evaluator) anywhere else. Reading a path throws only on a value that is not JSON or text
    /// (a column of another type): first in the AND, it throws where the general evaluator throws, and no test
    /// before it can end the AND early where the general evaluator would go on to the throw.
    private static func path(
        _ value: ComputedValue, _ op: ComparisonOperator, _ v: DatabaseValue, into tests: inout [Test]
    ) -> Bool {
        guard case .jsonPath(.operand(.column(let c)), let p) = value else { return false }
        if tests.isEmpty {
            tests.append(.path(value, [(op, v)]))
            return true
        }
        guard tests.count == 1, case .path(.jsonPath(.operand(.column(let c0)), let p0), var checks) = tests[0],
            c0 == c, p0 == p
        else { return false }
        checks.append((op, v))
        tests[0] = .path(value, checks)
        return true
    }

    private static func test(_ op: ComparisonOperator, _ c: Int, _ v: DatabaseValue) -> Test {
        switch v {
        case .null: .never  // a comparison with NULL is never TRUE
        case .integer(let i): .integer(column: c, op: op, value: i)
        case .bool(let b): .bool(column: c, op: op, value: b)
        case .text(let s): .text(column: c, op: op, value: s)
        default: .other(column: c, op: op, value: v)
        }
    }

    /// Whether every test is TRUE for the row in `rows[slot]` (read in place: no copy, no retain).
    @inline(__always)
    func matches(_ rows: UnsafeBufferPointer<[DatabaseValue]>, _ slot: Int) throws(StrataError) -> Bool {
        try tests.withUnsafeBufferPointer { tests throws(StrataError) in
            // A while loop over Ints: no generic iteration calls in unoptimized (debug) builds either.
            var t = 0
            while t < tests.count {
                defer { t += 1 }
                switch tests[t] {
                case .integer(let c, let op, let value):
                    if case .integer(let x) = rows[slot][c] {
                        if !CompiledCondition.holds(op, x < value ? -1 : (x == value ? 0 : 1)) { return false }
                    } else if !Self.general(op, rows[slot][c], .integer(value)) {
                        return false
                    }
                case .bool(let c, let op, let value):
                    if case .bool(let x) = rows[slot][c] {
                        if !CompiledCondition.holds(op, x == value ? 0 : (x ? 1 : -1)) { return false }
                    } else if !Self.general(op, rows[slot][c], .bool(value)) {
                        return false
                    }
                case .text(let c, let op, let value):
                    if case .text(let x) = rows[slot][c] {
                        if !CompiledCondition.holds(op, ValueOrder.compareUTF8(x, value)) { return false }
                    } else if !Self.general(op, rows[slot][c], .text(value)) {
                        return false
                    }
                case .other(let c, let op, let value):
                    if !Self.general(op, rows[slot][c], value) { return false }
                case .isNull(let c, let negated):
                    if rows[slot][c].isNull == negated { return false }
                case .condition(let condition):
                    if try condition.truth(rows[slot]) != .yes { return false }
                case .path(let value, let checks):
                    let x = try value.value(rows[slot])
                    for check in checks where check.value.isNull || !Self.general(check.op, x, check.value) {
                        return false
                    }
                case .never:
                    return false
                }
            }
            return true
        }
    }

    private static func general(_ op: ComparisonOperator, _ x: DatabaseValue, _ v: DatabaseValue) -> Bool {
        !x.isNull && CompiledCondition.holds(op, ValueOrder.compare(x, v))
    }
}
