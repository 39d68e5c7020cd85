// ColumnSetter: sets one model property from a row, as `@Model` writes it for the columns a write reads back.

/// What every ``ColumnSetter`` shares, whatever its model: the model it sets, so that a schema can check that a
/// setter is for its own model before calling it.
///
/// `@unchecked Sendable`: its one field is an immutable `ObjectIdentifier`.
public class AnyColumnSetter: @unchecked Sendable {
    /// The model type the setter sets a property of.
    @usableFromInline let model: ObjectIdentifier

    @usableFromInline
    init(model: ObjectIdentifier) { self.model = model }
}

/// Sets one stored property of `M` from a column of a row: what a write calls to put the value the database
/// computed (a ``GeneratedColumn``, a ``DatabaseDefault``) into the model, one indirect call where a key path's
/// assignment looked up generic metadata and projected the property (about 2,400 instructions a value).
///
/// `@Model` attaches one to each column a write reads back (``TableColumn/readBack(_:)``); a column without one is
/// set through its key path.
///
/// `@unchecked Sendable`: its fields are immutable and the closure is `@Sendable`.
public final class ColumnSetter<M>: AnyColumnSetter, @unchecked Sendable {
    /// Decodes column `column` of the row and assigns it to the property.
    @usableFromInline let set: @Sendable (inout M, Row, Int) throws(StrataError) -> Void

    @usableFromInline
    init(_ set: @escaping @Sendable (inout M, Row, Int) throws(StrataError) -> Void) {
        self.set = set
        super.init(model: ObjectIdentifier(M.self))
    }
}

extension TableColumn {
    /// The column with a setter for the value a write reads back into the model: `set` decodes the row's column
    /// (its second and third arguments) and assigns it to the property. `@Model` writes it for each `var` whose
    /// value the database computes:
    ///
    /// ```swift
    /// TableColumn(\Line.total, "total", default: 0, constant: true).generated()
    ///     .readBack { (model: inout Line, row: Row, column: Int) throws(StrataError) in
    ///         model.total = try row.decode(column)
    ///     }
    /// ```
    ///
    /// - Parameter set: assigns the decoded value of column `column` of the row to the model's property.
    /// - Returns: the column, setting its read-back value through `set`.
    public func readBack<M>(_ set: @escaping @Sendable (inout M, Row, Int) throws(StrataError) -> Void) -> TableColumn {
        var c = self
        c.property = PropertyKeyPath(
            keyPath: property.keyPath, valueType: property.valueType, setter: ColumnSetter(set))
        return c
    }

    /// The setter ``readBack(_:)`` attached, if any.
    var setter: AnyColumnSetter? { property.setter }
}
