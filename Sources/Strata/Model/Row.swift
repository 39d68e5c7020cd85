// Row: one result row as a model's generated initializer reads it, by column index.

/// What a driver exposes of its current result row.
///
/// Class-bound, so the core calls a reader through a plain reference: no existential box to project on
/// each column read. A driver usually keeps one reader per statement and points it at each row.
public protocol RowReader: AnyObject {
    /// The number of columns in the row.
    var columnCount: Int { get }
    /// The value at `index` (0-based); valid only until the driver moves to the next row.
    func value(at index: Int) -> DatabaseValue
    /// The integer at `index`, or nil when the stored value is not an integer (a fast path; the
    /// default goes through ``value(at:)``).
    func int64(at index: Int) -> Int64?
    /// The double at `index`, or nil when the stored value is not a double.
    func double(at index: Int) -> Double?
    /// The text at `index`, or nil when the stored value is not text.
    func string(at index: Int) -> String?
}

extension RowReader {
    /// The integer at `index` through ``value(at:)``, or nil when the value there is not an integer.
    ///
    /// - Parameter index: the column's position, from 0.
    /// - Returns: the integer, or nil.
    public func int64(at index: Int) -> Int64? {
        if case .integer(let v) = value(at: index) { return v }
        return nil
    }

    /// The double at `index` through ``value(at:)``, or nil when the value there is not a double.
    ///
    /// - Parameter index: the column's position, from 0.
    /// - Returns: the double, or nil.
    public func double(at index: Int) -> Double? {
        if case .double(let v) = value(at: index) { return v }
        return nil
    }

    /// The text at `index` through ``value(at:)``, or nil when the value there is not text.
    ///
    /// - Parameter index: the column's position, from 0.
    /// - Returns: the text, or nil.
    public func string(at index: Int) -> String? {
        if case .text(let v) = value(at: index) { return v }
        return nil
    }
}

/// A one-column result row a driver points at each value in turn: the key an INSERT hands back, a
/// RETURNING column.
public final class SingleValueRow: RowReader {
    /// The one column's current value. Unchecked for exclusivity: a driver sets it and then hands the row to a
    /// callback that reads it, one access at a time on one thread (the row is not `Sendable`), so the dynamic
    /// check (about 80 instructions an access, two an insert) could never fire.
    @exclusivity(unchecked) public var value: DatabaseValue

    /// A row holding one value.
    ///
    /// - Parameter value: the column's first value.
    public init(value: DatabaseValue) { self.value = value }

    /// Always 1.
    public var columnCount: Int { 1 }

    /// The row's one value, whatever `index` is.
    ///
    /// - Parameter index: ignored; the row has one column.
    /// - Returns: ``value``.
    public func value(at index: Int) -> DatabaseValue { value }
}

/// A row of a model's table, read by the model's column index.
///
/// When a query selects only some columns, `layout` maps each model column to its position in
/// the result; columns that were not selected fall back to the property's default.
public struct Row {
    @usableFromInline let reader: any RowReader
    @usableFromInline let context: RowContext

    @usableFromInline
    init(reader: any RowReader, context: RowContext) {
        self.reader = reader
        self.context = context
    }

    /// Reads model column `column` as `T`.
    ///
    /// - Throws: ``StrataError/decodingFailed(model:column:value:expected:)`` when the value does not
    ///   fit, ``StrataError/columnNotSelected(model:column:)`` when it was not selected and `T` is not optional.
    /// Inlinable, so the generated initializer in the model's module is specialized per property type.
    @inlinable @inline(__always)
    public func decode<T: DatabaseValueConvertible>(_ column: Int) throws(StrataError) -> T {
        guard let index = context.resultIndex(column) else {
            do {
                return try T(databaseValue: .null)
            } catch {
                throw context.notSelected(column)
            }
        }
        if let fast = T.read(from: reader, at: index) { return fast }
        let value = reader.value(at: index)
        do {
            return try T(databaseValue: value)
        } catch {
            throw context.decodingFailed(column, value, error)
        }
    }

    /// Reads model column `column`, or returns `default` when the query did not select it.
    @inlinable @inline(__always)
    public func decode<T: DatabaseValueConvertible>(_ column: Int, default: @autoclosure () -> T) throws(StrataError)
        -> T
    {
        guard context.resultIndex(column) != nil else { return `default`() }
        return try decode(column)
    }
}

/// What every row of one query shares: the model's type and the result layout. A struct with no
/// allocation when the result is the whole model, as for `find` and `all()`.
@usableFromInline
struct RowContext {
    @usableFromInline let modelType: any Model.Type
    /// For each model column, its index in the result, or -1; nil when the result is the whole model.
    @usableFromInline let layout: [Int]?
    /// What opens the model's `@Encrypted` columns (the database's ``Configuration/encryption``); nil when the model
    /// has none.
    @usableFromInline let keyring: Keyring?

    /// The context of a row that holds the whole model, in its column order (a find's): what
    /// ``init(model:schema:selected:keyring:)`` makes with no selection, inlined into the model's find. Out of line,
    /// that call retained and released the schema's storage and the keyring (about 70 instructions a row).
    @inlinable
    init(wholeRowOf model: any Model.Type, schema: borrowing TableSchema, keyring: Keyring?) {
        self.modelType = model
        self.layout = nil
        self.keyring = schema.storage.hasEncryptedColumns ? keyring : nil
    }

    @usableFromInline
    init(model: any Model.Type, schema: TableSchema, selected: [String]?, keyring: Keyring? = nil) {
        self.modelType = model
        self.keyring = schema.storage.hasEncryptedColumns ? keyring : nil
        if let selected, selected != schema.columnNames {
            layout = schema.columns.map { c in selected.firstIndex(of: c.name) ?? -1 }
        } else {
            layout = nil
        }
    }

    /// A row laid out as `layout` says: model column `i` at `layout[i]`, or not selected (-1).
    @usableFromInline
    init(model: any Model.Type, layout: [Int]) {
        self.modelType = model
        self.keyring = nil
        self.layout = layout
    }

    /// The columns of a model that start at `offset` in a joined row.
    init(model: any Model.Type, columns: [TableColumn], offset: Int, keyring: Keyring? = nil) {
        self.modelType = model
        self.keyring = model.schema.storage.hasEncryptedColumns ? keyring : nil
        layout = offset == 0 ? nil : columns.indices.map { $0 + offset }
    }

    @inlinable @inline(__always)
    func resultIndex(_ column: Int) -> Int? {
        guard let layout else { return column }
        let i = layout[column]
        return i < 0 ? nil : i
    }

    /// The error for a column the query did not select (kept out of line: the cold path).
    @usableFromInline
    func notSelected(_ column: Int) -> StrataError {
        .columnNotSelected(model: String(describing: modelType), column: columnName(column))
    }

    /// The error for a stored value that does not fit (kept out of line: the cold path).
    @usableFromInline
    func decodingFailed(_ column: Int, _ value: DatabaseValue, _ error: ValueConversionError) -> StrataError {
        .decodingFailed(
            model: String(describing: modelType), column: columnName(column), value: value.summary,
            expected: error.expected)
    }

    func columnName(_ column: Int) -> String {
        let columns = modelType.schema.columns
        return column < columns.count ? columns[column].name : "#\(column)"
    }
}
