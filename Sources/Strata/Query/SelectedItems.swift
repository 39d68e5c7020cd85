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
    /// The plain types (`Int`, `Int64`, `Double`, `String`, `Bool` and their optionals) are told apart by their
    /// metatypes, not by asking `V`: a tuple's element types are not specialized across modules (the caller knows the
    /// pack, not each element's conformance), and asking an unspecialized `V` for its fast read built `Optional`
    /// metadata on every value (about 1,800 instructions a `String?`, measured on the json-path workload).
    ///
    /// - Throws: ``StrataError/decodingFailed(model:column:value:expected:)`` naming the item's key when the value does
    ///   not fit `V`; ``StrataError/arithmeticError(expression:reason:)`` for a sum past its type.
    @inlinable @inline(__always)
    func read<V: DatabaseValueConvertible>(_: V.Type, _ row: any RowReader, _ index: inout Int) throws(StrataError)
        -> V
    {
        let i = index
        index = i &+ 1
        if V.self == Int.self || V.self == Int?.self {
            if let v = row.int64(at: i), let n = Int(exactly: v) { return Self.plain(n, as: V.self) }
        } else if V.self == String.self || V.self == String?.self {
            if let v = row.string(at: i) { return Self.plain(v, as: V.self) }
        } else if V.self == Int64.self || V.self == Int64?.self {
            if let v = row.int64(at: i) { return Self.plain(v, as: V.self) }
        } else if V.self == Double.self || V.self == Double?.self {
            if let v = row.double(at: i) { return Self.plain(v, as: V.self) }
        } else if V.self == Bool.self || V.self == Bool?.self {
            if let v = Bool.read(from: row, at: i) { return Self.plain(v, as: V.self) }
        } else {
            return try readValue(V.self, row, at: i)
        }
        return try readPlainValue(V.self, row, at: i)
    }

    /// `value` as `V`, which is `T` or `T?` (checked by the caller's metatype comparison).
    @inlinable @inline(__always)
    static func plain<T, V>(_ value: T, as _: V.Type) -> V {
        V.self == T.self ? unsafeBitCast(value, to: V.self) : unsafeBitCast(T?.some(value), to: V.self)
    }

    /// The path of ``read(_:_:_:)`` for a plain type whose fast read did not take the value: NULL into an optional is
    /// nil (unless a count's rule reads it as 0); anything else is decoded as the general path decodes it.
    @usableFromInline
    func readPlainValue<V: DatabaseValueConvertible>(_: V.Type, _ row: any RowReader, at i: Int) throws(StrataError)
        -> V
    {
        let v = row.value(at: i)
        if V.isNullable, v.isNull, rules[i]?.function != .count {
            if V.self == Int?.self { return unsafeBitCast(Int?.none, to: V.self) }
            if V.self == String?.self { return unsafeBitCast(String?.none, to: V.self) }
            if V.self == Int64?.self { return unsafeBitCast(Int64?.none, to: V.self) }
            if V.self == Double?.self { return unsafeBitCast(Double?.none, to: V.self) }
            if V.self == Bool?.self { return unsafeBitCast(Bool?.none, to: V.self) }
        }
        return try decode(V.self, v, at: i)
    }

    /// The general path of ``read(_:_:_:)``: `V`'s own fast read, else the stored value, normalized by the item's
    /// aggregate rule, then `V(databaseValue:)`.
    @usableFromInline
    func readValue<V: DatabaseValueConvertible>(_: V.Type, _ row: any RowReader, at i: Int) throws(StrataError) -> V {
        if let v = V.read(from: row, at: i) { return v }
        return try decode(V.self, row.value(at: i), at: i)
    }

    /// Item `i`'s stored value `v`, normalized by the item's aggregate rule, as `V`.
    @usableFromInline
    func decode<V: DatabaseValueConvertible>(_: V.Type, _ stored: DatabaseValue, at i: Int) throws(StrataError) -> V {
        var v = stored
        if let rule = rules[i] { v = try rule.normalize(v, model: model) }
        do {
            return try V(databaseValue: v)
        } catch {
            throw .decodingFailed(model: model, column: keys[i], value: v.summary, expected: error.expected)
        }
    }
}
