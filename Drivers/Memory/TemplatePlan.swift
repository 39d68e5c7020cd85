// TemplatePlan: how a connection runs a model's save or find from its binds, without building the statement again.
import Strata

/// What a connection keeps of a ``StatementTemplate`` (a model's `save` of a new row, its `find`, or the read-back of
/// its computed columns, which is a find of fewer columns): worked out
/// from the statement the first time the connection runs the template, and used while the store's schema is the
/// one it was worked out against (``StoreState/schemaGeneration``).
enum TemplatePlan {
    /// `SELECT columns FROM table WHERE pk = ?`: the row comes from the primary-key map.
    case find(table: TableName, projection: [Int]?)
    /// `SELECT columns FROM table WHERE a = ? AND b = ?`, one term per column of a unique index in its order (a find
    /// by a composite key, or by a text or UUID key): the row comes from one probe of that index, at position `index`
    /// of the table's ``MemoryTable/indexes``.
    case findByIndex(table: TableName, index: Int, projection: [Int]?)
    /// `INSERT INTO table (columns) VALUES (?, …) [RETURNING column]` of one row, which is the binds; `generated`:
    /// the table's stored generated columns, compiled once for the schema the plan holds for.
    case insert(table: TableName, plan: InsertPlan, generated: [ComputedAssignment], returned: Int?)
    /// Any other shape (a soft-deleted model's find, database defaults, a multi-row insert, …): the statement is
    /// built and run as any other.
    case general

    /// The plan of `statement`, run with `binds` on `state` (which it has just run on without an error).
    ///
    /// Only the shapes whose every answer and error the plan gives as the statement would are planned; anything
    /// else is ``general``.
    static func make(_ statement: Statement, binds: [DatabaseValue], state: StoreState) -> TemplatePlan {
        switch statement {
        case .select(let s): return find(s, binds: binds, state: state)
        case .insert(let i): return insert(i, binds: binds, state: state)
        default: return .general
        }
    }

    /// The projection of a find's `SELECT` columns (nil: every column in order).
    var projection: [Int]? {
        switch self {
        case .find(_, let projection), .findByIndex(_, _, let projection): projection
        case .insert, .general: nil
        }
    }

    private static func find(_ s: Select, binds: [DatabaseValue], state: StoreState) -> TemplatePlan {
        guard s.joins.isEmpty, s.order.isEmpty, s.limit == nil, s.offset == nil, s.groupBy.isEmpty,
            s.having == nil, !s.distinct, s.lock == nil, s.compound == nil, s.commonTable == nil,
            case .columns(let names) = s.selection, !binds.isEmpty, let i = state.tables.index(forKey: s.table)
        else { return .general }
        let table = state.tables.values[i]
        var index: Int?
        if binds.count == 1, case .integer(let id) = binds[0], table.primaryKeyEquality(s.filter) == id {
            index = nil
        } else if let k = table.uniqueIndexEquality(s.filter, binds: binds) {
            index = k
        } else {
            return .general
        }
        // nil: every column in order (not `try?`, which would fold that nil into a failure).
        let projection: [Int]?
        do {
            projection = try ColumnScope(table).positions(of: names)
        } catch {
            return .general
        }
        guard let index else { return .find(table: TableName(s.table), projection: projection) }
        return .findByIndex(table: TableName(s.table), index: index, projection: projection)
    }

    private static func insert(_ i: Insert, binds: [DatabaseValue], state: StoreState) -> TemplatePlan {
        guard i.rows.count == 1, i.onConflict == nil, i.defaults.isEmpty, i.rows[0].count == i.columns.count,
            binds.count == i.columns.count, let t = state.tables.index(forKey: i.table)
        else { return .general }
        let table = state.tables.values[t]
        guard !table.hasDatabaseDefaults, let generated = try? table.generatedAssignments() else { return .general }
        let kept = table.insertPlan.flatMap { $0.columns == i.columns ? $0 : nil }
        guard let plan = kept ?? (try? InsertPlan(i.columns, table: table)), plan.defaultsError == nil else {
            return .general
        }
        var returned: Int?
        if let r = i.returning {
            guard let p = try? table.position(of: r) else { return .general }
            returned = p
        }
        return .insert(table: TableName(i.table), plan: plan, generated: generated, returned: returned)
    }
}

/// A template the connection ran, its plan, and the schema generation the plan holds for. A class, so looking it
/// up and handing it on costs one retain (a copy of the template and the plan retains each of their fields).
final class PlannedTemplate {
    let template: StatementTemplate
    let plan: TemplatePlan
    let generation: UInt64

    /// The generation of a template run once and not planned yet: no store reaches it, so the next run plans it.
    static let seenOnce = UInt64.max

    init(template: StatementTemplate, plan: TemplatePlan, generation: UInt64) {
        self.template = template
        self.plan = plan
        self.generation = generation
    }
}
