// GeneratedColumn: a column the database computes from the row's other columns (`GENERATED ALWAYS AS … STORED`).

/// A stored generated column's expression, declared on the model with Strata's typed expressions, so that every
/// dialect renders it and the memory driver computes it itself.
///
/// Mark the property `@Generated` and give its expression in the model's ``Model/generatedColumns``:
///
/// ```swift
/// @Model struct LineItem {
///     var id: Int64?
///     var price: Int64
///     var quantity: Int64
///     @Generated var total: Int64 = 0      // written by the database, read back after each save
///     static var generatedColumns: [GeneratedColumn<LineItem>] { [.init(\.total, as: \.price * \.quantity)] }
/// }
/// ```
///
/// Migration creates `"total" INTEGER NOT NULL GENERATED ALWAYS AS (strata_mul("price", "quantity")) STORED` on
/// SQLite and `"total" BIGINT NOT NULL GENERATED ALWAYS AS (… ("price" * "quantity") …) STORED` on PostgreSQL. An
/// insert never names the column; `save` reads its value back after an insert or an update; writing it
/// (`update(set: \.total, …)`, an upsert's set list, saving a model whose `total` was assigned) is
/// ``StrataError/generatedColumn(model:column:reason:)``. The expression follows the arithmetic rules of
/// ``ColumnExpression``: an overflow or a division by zero is ``StrataError/arithmeticError(expression:reason:)``
/// on every driver, and the row is not written.
///
/// The expression may use the model's other columns (not its primary key, nor another generated column),
/// values, arithmetic, `+` on text, `lower`, `upper` and `coalesce`.
public struct GeneratedColumn<M: Model>: Sendable {
    /// The generated property (a key path to a stored property is immutable: see ``PropertyKeyPath``).
    let property: PropertyKeyPath
    let expression: Result<SQLExpression, StrataError>

    /// The column `keyPath` maps, computed as `expression`.
    ///
    /// - Parameters:
    ///   - keyPath: the `@Generated` property.
    ///   - expression: its value, over the model's other columns (`\.price * \.quantity`).
    public init<V>(_ keyPath: KeyPath<M, V>, as expression: ColumnExpression<M, V>) {
        property = PropertyKeyPath(keyPath: keyPath, valueType: nil)
        self.expression = expression.result
    }

    /// An optional generated property computed from non-optional columns.
    ///
    /// - Parameters:
    ///   - keyPath: the `@Generated` property, optional.
    ///   - expression: its value.
    public init<V>(_ keyPath: KeyPath<M, V?>, as expression: ColumnExpression<M, V>) {
        property = PropertyKeyPath(keyPath: keyPath, valueType: nil)
        self.expression = expression.result
    }
}

extension Model {
    /// No generated columns.
    public static var generatedColumns: [GeneratedColumn<Self>] { [] }
}

extension TableColumn {
    /// The column marked as computed by the database: `@Generated` writes it; the expression comes from the
    /// model's ``Model/generatedColumns`` when the model is migrated (or is given here, for a schema built by
    /// hand). A generated column has no `DEFAULT` and is never filled by a migration that adds it.
    ///
    /// - Parameter expression: the column's expression, or nil until migration supplies it.
    /// - Returns: the column, generated.
    public func generated(as expression: SQLExpression? = nil) -> TableColumn {
        var c = self
        c.isGenerated = true
        c.generation = expression
        c.schemaDefault = nil
        c.backfill = nil
        return c
    }
}

extension TableSchema {
    /// The positions of the generated columns (see ``TableColumn/isGenerated``).
    @inlinable public var generatedColumnIndexes: [Int] { storage.generatedColumns }

    /// The column names a write names: every column but the generated ones (the primary key's too unless
    /// `includingKey`).
    ///
    /// - Parameter includingKey: whether the primary key is written (an app-assigned or explicit key).
    /// - Returns: the names, in schema order.
    @inlinable
    public func writtenColumnNames(includingKey: Bool) -> [String] {
        includingKey ? storage.writtenColumnNames : storage.insertColumnNames
    }

    /// `values` (one per column) without the generated columns' (and the primary key's unless `includingKey`).
    ///
    /// - Parameters:
    ///   - values: a model's values, one per column.
    ///   - includingKey: whether the primary key's value is kept.
    /// - Returns: the values a write binds, in the order of ``writtenColumnNames(includingKey:)``.
    @inlinable
    public func writtenValues(_ values: consuming [DatabaseValue], includingKey: Bool) -> [DatabaseValue] {
        // Consumed, so a caller's fresh array (a model's stored values) loses its key in place, without a copy.
        removeUnwritten(from: &values, includingKey: includingKey)
        return values
    }

    /// Removes from `values` (one per column) the generated columns' values (and the primary key's unless
    /// `includingKey`), in place: ``writtenValues(_:includingKey:)`` of an array the caller keeps.
    @inlinable
    func removeUnwritten(from values: inout [DatabaseValue], includingKey: Bool) {
        let generated = storage.generatedColumns
        let pk = includingKey ? nil : storage.primaryKeyIndex
        if generated.isEmpty {
            if let pk { values.remove(at: pk) }
            return
        }
        // Dropped from the last one back, so each position still names its column (a new array of the kept values,
        // and the release of every value of the old one, cost about 900 instructions a save; swapping the kept ones
        // down and cutting the tail, about 800).
        for i in values.indices.reversed() where i == pk || generated.contains(i) { values.remove(at: i) }
    }

    /// The schema with each generated column's expression taken from `model`'s ``Model/generatedColumns``.
    ///
    /// - Throws: ``StrataError/generatedColumn(model:column:reason:)`` for a `@Generated` column without an
    ///   expression, an expression for a column that is not `@Generated` (or not stored), and an expression
    ///   that names the primary key or another generated column, or uses anything but columns, values,
    ///   arithmetic, concatenation, `lower`, `upper` and `coalesce`.
    func generating<M: Model>(_ model: M.Type) throws(StrataError) -> TableSchema {
        var columns = self.columns
        let declared = M.generatedColumns
        guard !declared.isEmpty || columns.contains(where: \.isGenerated) else { return self }
        for entry in declared {
            guard let keyPath = entry.property.keyPath, let i = index(of: keyPath) else {
                throw .generatedColumn(
                    model: M.modelName, column: "\(entry.property.keyPath.map { "\($0)" } ?? "?")",
                    reason: "is not a stored property")
            }
            let name = columns[i].name
            guard columns[i].isGenerated else {
                throw .generatedColumn(
                    model: M.modelName, column: name, reason: "has an expression but is not marked @Generated")
            }
            let expression = try entry.expression.get()
            try Self.checkGeneration(expression.node, model: M.modelName, column: name, columns: columns)
            columns[i] = columns[i].generated(as: expression)
        }
        if let missing = columns.first(where: { $0.isGenerated && $0.generation == nil }) {
            throw .generatedColumn(
                model: M.modelName, column: missing.name,
                reason: "is @Generated but has no expression in \(M.modelName).generatedColumns")
        }
        var schema = self
        schema.columns = columns
        return schema
    }

    /// Refuses what a stored generated column cannot compute on every backend.
    static func checkGeneration(
        _ node: SQLExpression.Node, model: String, column: String, columns: [TableColumn]
    ) throws(StrataError) {
        func check(_ n: SQLExpression.Node) throws(StrataError) {
            switch n {
            case .column(let name):
                guard let c = columns.first(where: { $0.name == name }) else {
                    throw .generatedColumn(model: model, column: column, reason: "names no column \(name)")
                }
                if c.isPrimaryKey {
                    throw .generatedColumn(
                        model: model, column: column,
                        reason: "names the primary key \(name), which the database "
                            + "assigns after the row's other values")
                }
                if c.isGenerated {
                    throw .generatedColumn(
                        model: model, column: column, reason: "names the generated column \(name)")
                }
            case .value(let v):
                switch v {
                case .integer, .double, .text, .bool, .null: return
                default:
                    throw .generatedColumn(
                        model: model, column: column,
                        reason: "uses a value with no SQL literal (only integers, "
                            + "doubles, booleans and text)")
                }
            case .arithmetic(_, let l, let r), .concat(let l, let r):
                try check(l)
                try check(r)
            case .caseMapped(let e, _), .typed(let e, _): try check(e)
            case .coalesce(let items): for item in items { try check(item) }
            default:
                throw .generatedColumn(
                    model: model, column: column,
                    reason: "uses an expression a generated column cannot hold "
                        + "(only columns, values, arithmetic, +, lower, upper and coalesce)")
            }
        }
        try check(node)
    }
}
