// Row+DateFormat: reads a date column stored in another tool's form (see DateFormat).

extension Row {
    /// Reads model column `column`, whose dates are stored in `dateFormat`, as `T` (a `Date` or `Date?`).
    ///
    /// - Throws: ``StrataError/decodingFailed(model:column:value:expected:)`` when the value is no date in
    ///   that form, ``StrataError/columnNotSelected(model:column:)`` as ``decode(_:)``.
    @inlinable
    public func decode<T: DatabaseValueConvertible>(_ column: Int, dateFormat: DateFormat) throws(StrataError) -> T {
        guard let index = context.resultIndex(column) else { return try decode(column) }
        let stored = reader.value(at: index)
        do {
            return try T(databaseValue: dateFormat.read(stored))
        } catch {
            throw context.decodingFailed(column, stored, error)
        }
    }

    /// Reads model column `column` stored in `dateFormat`, or returns `default` when the query did not select it.
    @inlinable
    public func decode<T: DatabaseValueConvertible>(
        _ column: Int, dateFormat: DateFormat, default: @autoclosure () -> T
    ) throws(StrataError) -> T {
        guard context.resultIndex(column) != nil else { return `default`() }
        return try decode(column, dateFormat: dateFormat)
    }
}
