// Row: one result row as a model's generated initializer reads it, by column index.

/// What a driver exposes of its current result row.
public protocol RowReader {
    /// The number of columns in the row.
    var columnCount: Int { get }
    /// The value at `index` (0-based); valid only until the driver moves to the next row.
    func value(at index: Int) -> DatabaseValue
}

/// A row of a model's table, read by the model's column index.
///
/// When a query selects only some columns, `layout` maps each model column to its position in
/// the result; columns that were not selected fall back to the property's default.
public struct Row {
    let reader: any RowReader
    let context: RowContext

    init(reader: any RowReader, context: RowContext) {
        self.reader = reader
        self.context = context
    }

    /// Reads model column `column` as `T`.
    ///
    /// - Throws: ``StrataError/decodingFailed(model:column:value:expected:)`` when the value does not
    ///   fit, ``StrataError/columnNotSelected(model:column:)`` when it was not selected and `T` is not optional.
    @inline(__always)
    public func decode<T: DatabaseValueConvertible>(_ column: Int) throws(StrataError) -> T {
        guard let index = context.resultIndex(column) else {
            do {
                return try T(databaseValue: .null)
            } catch {
                throw .columnNotSelected(model: context.model, column: context.columnName(column))
            }
        }
        let value = reader.value(at: index)
        do {
            return try T(databaseValue: value)
        } catch {
            throw .decodingFailed(
                model: context.model, column: context.columnName(column), value: value.summary,
                expected: error.expected)
        }
    }

    /// Reads model column `column`, or returns `default` when the query did not select it.
    @inline(__always)
    public func decode<T: DatabaseValueConvertible>(_ column: Int, default: @autoclosure () -> T) throws(StrataError)
        -> T
    {
        guard context.resultIndex(column) != nil else { return `default`() }
        return try decode(column)
    }
}

/// What every row of one query shares: the model's type and columns and the result layout.
final class RowContext {
    let modelType: Any.Type
    let columns: [TableColumn]
    /// For each model column, its index in the result, or -1; nil when the result is the whole model.
    let layout: [Int]?

    /// The model's name, for error messages only (computed when needed, not per query).
    var model: String { String(describing: modelType) }

    init(model: Any.Type, schema: TableSchema, selected: [String]?) {
        self.modelType = model
        self.columns = schema.columns
        if let selected, selected != schema.columnNames {
            layout = columns.map { c in selected.firstIndex(of: c.name) ?? -1 }
        } else {
            layout = nil
        }
    }

    @inline(__always)
    /// The columns of a model that start at `offset` in a joined row.
    init(model: Any.Type, columns: [TableColumn], offset: Int) {
        self.modelType = model
        self.columns = columns
        layout = offset == 0 ? nil : columns.indices.map { $0 + offset }
    }

    @inline(__always)
    func resultIndex(_ column: Int) -> Int? {
        guard let layout else { return column }
        let i = layout[column]
        return i < 0 ? nil : i
    }

    func columnName(_ column: Int) -> String {
        column < columns.count ? columns[column].name : "#\(column)"
    }
}
