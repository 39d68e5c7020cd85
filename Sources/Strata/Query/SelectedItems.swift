// SelectedItems: the items of a typed select(…) resolved once, and how a row's values are read from the driver's row.

/// The items of one `select(…)` of typed tuples, resolved against the query's joins once per query: the SELECT list,
/// each item's key (what a failure names) and the aggregate rule its value follows.
///
/// A row's values are read from the driver's row (``RowReader``) by index, each with its type's own fast read
/// (``DatabaseValueConvertible/read(from:at:)``: `sqlite3_column_int64` for an `Int` stored as an integer, the text's
/// bytes for a `String`), so a tuple of plain values costs no ``DatabaseValue`` and no array. A value the fast read
/// does not take (NULL, a number stored as text, a `Decimal`, a `Date`, an aggregate whose driver type differs from
/// the Swift one) takes the general path: ``DatabaseValue``, the item's normalization
/// (``Aggregate/normalize(_:model:)``), then `init(databaseValue:)`, with the same errors as before.
@usableFromInline
final class SelectedItems {
    /// The SELECT list, in the tuple's order.
    let items: [SelectItem]
    /// Each item's ``Projection/key``: what a decoding failure names as the column.
    let keys: [String]
    /// For each item, the aggregate whose types its value follows, or nil for a value read as it is stored.
    let rules: [Aggregate?]
    /// The model's name, for errors.
    let model: String
    /// The positions of coding keys a `Decodable` row matched loosely, or -1 for none (see `position(ofKey:)`).
    var loosePositions: [String: Int] = [:]

    init(items: [SelectItem], keys: [String], model: String) {
        self.items = items
        self.keys = keys
        self.rules = items.map(\.aggregateRule)
        self.model = model
    }

    /// Reads item `index` of the current row as `V` and moves `index` to the next item.
    ///
    /// A fast read that succeeds gives what the general path gives: it takes only a value already stored as `V`'s
    /// own kind, which no normalization changes (a count or an integer sum stays an integer, an average or a double
    /// sum stays a double).
    ///
    /// - Throws: ``StrataError/decodingFailed(model:column:value:expected:)`` naming the item's key when the value does
    ///   not fit `V`; ``StrataError/arithmeticError(expression:reason:)`` for a sum past its type.
    @inlinable @inline(__always)
    func read<V: DatabaseValueConvertible>(_: V.Type, _ row: any RowReader, _ index: inout Int) throws(StrataError)
        -> V
    {
        let i = index
        index = i &+ 1
        if let v = V.read(from: row, at: i) { return v }
        return try readValue(V.self, row, at: i)
    }

    /// The general path of ``read(_:_:_:)``: the stored value, normalized by the item's aggregate rule, then
    /// `V(databaseValue:)`.
    @usableFromInline
    func readValue<V: DatabaseValueConvertible>(_: V.Type, _ row: any RowReader, at i: Int) throws(StrataError) -> V {
        var v = row.value(at: i)
        if let rule = rules[i] { v = try rule.normalize(v, model: model) }
        do {
            return try V(databaseValue: v)
        } catch {
            throw .decodingFailed(model: model, column: keys[i], value: v.summary, expected: error.expected)
        }
    }
}
