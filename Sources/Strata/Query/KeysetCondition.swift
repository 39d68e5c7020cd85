// KeysetCondition: the rows after a position in an order, NULL-aware, built from the AST's own comparisons.

/// The condition a keyset page adds: the rows that come after `values` in `order`, the order Strata sorts in
/// (NULL first ascending, last descending).
///
/// Term `i` keeps the rows equal on the terms before it and after `values[i]` on its own: ascending, after NULL
/// comes every non-NULL value and after a value the greater ones; descending, after a value come the smaller ones
/// and, on a column that can hold NULL, NULL; after NULL nothing. So `order(\.name).order(\.id)` after `("Ann", 7)`
/// is `(name > 'Ann') OR ((name = 'Ann') AND (id > 7))`. It is written with plain comparisons rather than a row value
/// (`(name, id) > (?, ?)`) because a row value holds one direction and no NULL, and the memory driver evaluates
/// these comparisons as they are.
package enum KeysetCondition {
    /// The rows after `values` (one stored value per term) in `order`.
    ///
    /// - Parameters:
    ///   - order: the terms, plain columns of the main table (``Ordering/isNeverNull`` set where the column is).
    ///   - values: the position: the ordered columns' values in the row it stands for.
    /// - Returns: the condition (FALSE when nothing can come after the position).
    package static func after(_ order: [Ordering], _ values: [DatabaseValue]) -> SQLExpression {
        var alternatives: [SQLExpression] = []
        var equalBefore: [SQLExpression] = []
        for (o, value) in zip(order, values) {
            let column = SQLExpression.column(o.column)
            let after: SQLExpression?
            switch (o.direction, value.isNull) {
            case (.ascending, true): after = .isNull(column, negated: true)
            case (.ascending, false): after = .compare(.greater, column, .value(value))
            case (.descending, true): after = nil
            case (.descending, false):
                let less = SQLExpression.compare(.less, column, .value(value))
                after = o.isNeverNull ? less : .or([less, .isNull(column)])
            }
            if let after { alternatives.append(.and(equalBefore + [after])) }
            equalBefore.append(value.isNull ? .isNull(column) : .compare(.equal, column, .value(value)))
        }
        return .or(alternatives)
    }
}
