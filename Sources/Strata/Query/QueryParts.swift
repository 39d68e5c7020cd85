// QueryParts: a builder's state, split into the parts every query sets and the rarer ones kept out of line.

/// The parts of a ``QueryBuilder`` nearly every query sets: its conditions, order, limit, offset, tag and which
/// soft-deleted rows it sees. Not generic, so the builder's copy or destroy reaches them through one compiled
/// value witness (the generic builder's own walks its fields one by one).
struct QueryParts {
    var filters: [SQLExpression] = []
    var order: [Ordering] = []
    var limit: Int?
    var offset: Int?
    var tag: String?
    var deletedRows = DeletedRows.excluded
}

/// The parts of a ``QueryBuilder`` most queries leave empty, in one reference: copying or destroying a builder
/// retains or releases it once, and a builder that sets one of them first makes its own copy (copy on write).
final class QueryExtras<M: Model> {
    /// The values, set through the builder's properties of the same names.
    struct Values {
        var selected: [String]?
        var assignments: [Assignment] = []
        var includes: [@Sendable (inout [M], Transaction) throws -> Void] = []
        var joins: [JoinSpec] = []
        var error: StrataError?
        var grouping = Grouping()
        var lock: RowLock?
        var compound: Compound?
        var commonTable: CommonTable?
    }

    var values: Values

    init(_ values: Values) { self.values = values }

    var selected: [String]? { values.selected }
    var assignments: [Assignment] { values.assignments }
    var includes: [@Sendable (inout [M], Transaction) throws -> Void] { values.includes }
    var joins: [JoinSpec] { values.joins }
    var error: StrataError? { values.error }
    var grouping: Grouping { values.grouping }
    var lock: RowLock? { values.lock }
    var compound: Compound? { values.compound }
    var commonTable: CommonTable? { values.commonTable }
}
