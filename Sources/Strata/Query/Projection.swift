// Projection: a typed item of a grouped or aggregate query: a column, or an aggregate of one, with its Swift type.
import Foundation

/// The joins of a query, by association key and by table, which a projection's joined column resolves against.
struct JoinAliases: Sendable {
    let byKey: [String: String]
    let byTable: [String: String]
}

/// One typed item of ``QueryBuilder/select(_:)-63y8o``: a grouped column or an aggregate, read back as `Value`.
///
/// ```swift
/// let totals = try await Order.query(on: db)
///     .group(by: \.customerID)
///     .having(.sum(\.amount) > 100)
///     .order(.sum(\.amount), .descending)
///     .select(.column(\.customerID), .sum(\.amount), .count())   // [(Int64?, Int64?, Int)]
/// ```
///
/// Every driver agrees on the types: `count` is an `Int`, `sum` of integers an `Int64?`, of doubles a `Double?`,
/// of decimals an exact `Decimal?`; `avg` a `Double?`; `min`/`max` the column's own type, optional. An empty
/// input gives nil (0 for a count).
public struct Projection<M: Model, Value: DatabaseValueConvertible>: Sendable {
    let resolve: @Sendable (JoinAliases) -> Result<SelectItem, StrataError>
    /// The key a `Decodable` row reads this item under.
    public let key: String
    /// Whether the item is a text column (so ordering by it names the dialect's code-point collation).
    var isText = false

    init(key: String, resolve: @escaping @Sendable (JoinAliases) -> Result<SelectItem, StrataError>) {
        self.key = key
        self.resolve = resolve
    }

    /// The same item read by a `Decodable` row under `key` (`.sum(\.amount).as("total")`).
    public func `as`(_ key: String) -> Self {
        var p = Projection(key: key, resolve: resolve)
        p.isText = isText
        return p
    }

    /// Reads the item's (normalized) value.
    func read(_ value: DatabaseValue) throws(ValueConversionError) -> Value { try Value(databaseValue: value) }

    /// A column of the model, named after its column (`customer_id`; a `Decodable` row's `customerID` finds it).
    public static func column<V: DatabaseValueConvertible>(_ kp: KeyPath<M, V>) -> Projection<M, V> {
        var p = Projection<M, V>(
            key: M.columnName(for: kp) ?? "\(kp)", resolve: ownColumn(kp) { .success(.column($0)) })
        p.isText = M.schema.isText(M.columnName(for: kp))
        return p
    }

    /// A column of a joined association (`join(_:)` it first).
    public static func column<A: JoinableAssociation, V: DatabaseValueConvertible>(
        _ association: A, _ kp: KeyPath<A.Target, V>
    ) -> Projection<M, V> where A.Owner == M {
        var p = Projection<M, V>(
            key: A.Target.columnName(for: kp) ?? "\(kp)",
            resolve: joinedColumn(association, kp) { .success(.column($0)) })
        p.isText = A.Target.schema.isText(A.Target.columnName(for: kp))
        return p
    }

    /// `COUNT(*)`: the rows of each group.
    public static func count() -> Projection<M, Int> {
        Projection<M, Int>(key: "count") { _ in .success(.aggregate(.countAll)) }
    }

    /// `COUNT(c)`: the non-NULL values of a column.
    public static func count<V: DatabaseValueConvertible>(_ kp: KeyPath<M, V>) -> Projection<M, Int> {
        aggregate(.count, own: kp)
    }

    /// `COUNT(DISTINCT c)`: the distinct non-NULL values of a column.
    public static func count<V: DatabaseValueConvertible>(distinct kp: KeyPath<M, V>) -> Projection<M, Int> {
        aggregate(.count, own: kp, distinct: true)
    }

    /// `COUNT(c)` over a joined association's column: its matches in each group (an outer join's NULLs not counted).
    public static func count<A: JoinableAssociation, V: DatabaseValueConvertible>(
        _ association: A, _ kp: KeyPath<A.Target, V>
    ) -> Projection<M, Int> where A.Owner == M {
        aggregate(.count, association, kp)
    }

    /// `SUM(c)`: an `Int64?` for integers (past Int64 is an error), `Double?` for doubles, an exact `Decimal?`.
    public static func sum<V: SummableColumn>(_ kp: KeyPath<M, V>) -> Projection<M, V.Sum?> {
        aggregate(.sum, own: kp)
    }

    /// `SUM(c)` over a joined association's column.
    public static func sum<A: JoinableAssociation, V: SummableColumn>(_ association: A, _ kp: KeyPath<A.Target, V>)
        -> Projection<M, V.Sum?> where A.Owner == M
    {
        aggregate(.sum, association, kp)
    }

    /// `AVG(c)`, a `Double?` on every driver.
    public static func avg<V: SummableColumn>(_ kp: KeyPath<M, V>) -> Projection<M, Double?> {
        aggregate(.avg, own: kp)
    }

    /// `AVG(c)` over a joined association's column.
    public static func avg<A: JoinableAssociation, V: SummableColumn>(_ association: A, _ kp: KeyPath<A.Target, V>)
        -> Projection<M, Double?> where A.Owner == M
    {
        aggregate(.avg, association, kp)
    }

    /// `MIN(c)` of a column that orders alike everywhere (numbers, text, dates, decimals).
    public static func min<V: DatabaseValueConvertible>(_ kp: KeyPath<M, V>) -> Projection<M, V?> {
        aggregate(.min, own: kp)
    }

    /// `MIN(c)` of an optional column.
    public static func min<V: DatabaseValueConvertible>(_ kp: KeyPath<M, V?>) -> Projection<M, V?> {
        aggregate(.min, own: kp)
    }

    /// `MAX(c)` of a column that orders alike everywhere.
    public static func max<V: DatabaseValueConvertible>(_ kp: KeyPath<M, V>) -> Projection<M, V?> {
        aggregate(.max, own: kp)
    }

    /// `MAX(c)` of an optional column.
    public static func max<V: DatabaseValueConvertible>(_ kp: KeyPath<M, V?>) -> Projection<M, V?> {
        aggregate(.max, own: kp)
    }

    /// `MIN(c)` over a joined association's column.
    public static func min<A: JoinableAssociation, V: DatabaseValueConvertible>(
        _ association: A, _ kp: KeyPath<A.Target, V>
    ) -> Projection<M, V?> where A.Owner == M {
        aggregate(.min, association, kp)
    }

    /// `MAX(c)` over a joined association's column.
    public static func max<A: JoinableAssociation, V: DatabaseValueConvertible>(
        _ association: A, _ kp: KeyPath<A.Target, V>
    ) -> Projection<M, V?> where A.Owner == M {
        aggregate(.max, association, kp)
    }

    // MARK: Building

    /// Resolves a column of `M` through `make`; the closure holds only names, never a key path or metatype.
    private static func ownColumn<V>(
        _ kp: KeyPath<M, V>, _ make: @escaping @Sendable (ColumnRef) -> Result<SelectItem, StrataError>
    ) -> @Sendable (JoinAliases) -> Result<SelectItem, StrataError> {
        let model = M.modelName
        guard let name = M.columnName(for: kp) else {
            let missing = "\(kp)"
            return { _ in .failure(.unknownColumn(model: model, column: missing)) }
        }
        return { _ in make(ColumnRef(name)) }
    }

    /// Resolves a column of a joined association's model through `make`, once the join is there.
    private static func joinedColumn<A: JoinableAssociation, V>(
        _ association: A, _ kp: KeyPath<A.Target, V>,
        _ make: @escaping @Sendable (ColumnRef) -> Result<SelectItem, StrataError>
    ) -> @Sendable (JoinAliases) -> Result<SelectItem, StrataError> {
        let model = A.Target.modelName
        let joinKey = association.key
        guard let name = A.Target.columnName(for: kp) else {
            let missing = "\(kp)"
            return { _ in .failure(.unknownColumn(model: model, column: missing)) }
        }
        return { joins in
            guard let alias = joins.byKey[joinKey] else {
                return .failure(.invalidQuery("\(joinKey) is not joined; call join(…) first"))
            }
            return make(ColumnRef(name, table: alias))
        }
    }

    private static func aggregate<V, R>(_ function: Aggregate.Function, own kp: KeyPath<M, V>, distinct: Bool = false)
        -> Projection<M, R>
    {
        let model = M.modelName
        let name = M.columnName(for: kp) ?? "\(kp)"
        let type = M.schema.columnType(of: name)
        let sealed = M.schema.encryptedColumn(named: name, model: model)
        return Projection<M, R>(
            key: function.rawValue + "_" + name,
            resolve: ownColumn(kp) { ref in
                if let sealed { return .failure(sealed.error("an aggregate (\(function)) cannot read envelopes")) }
                return checkedAggregate(
                    Aggregate(function, ref, distinct: distinct, type: type), model: model, column: name)
            })
    }

    private static func aggregate<A: JoinableAssociation, V, R>(
        _ function: Aggregate.Function, _ association: A, _ kp: KeyPath<A.Target, V>
    ) -> Projection<M, R> where A.Owner == M {
        let model = A.Target.modelName
        let name = A.Target.columnName(for: kp) ?? "\(kp)"
        let type = A.Target.schema.columnType(of: name)
        let sealed = A.Target.schema.encryptedColumn(named: name, model: model)
        return Projection<M, R>(
            key: function.rawValue + "_" + name,
            resolve: joinedColumn(association, kp) { ref in
                if let sealed { return .failure(sealed.error("an aggregate (\(function)) cannot read envelopes")) }
                return checkedAggregate(Aggregate(function, ref, type: type), model: model, column: name)
            })
    }
}

/// The aggregate, or the typed error for a column type it cannot take the same way on every backend.
private func checkedAggregate(_ a: Aggregate, model: String, column: String) -> Result<SelectItem, StrataError> {
    if let reason = a.typeProblem { return .failure(.invalidAggregate(model: model, column: column, reason: reason)) }
    return .success(.aggregate(a))
}

extension Aggregate {
    /// Why this aggregate cannot run over its column's type alike on every backend, or nil when it can.
    public var typeProblem: String? {
        guard let type else { return nil }
        switch function {
        case .count: return nil
        case .sum, .avg:
            return type.isNumber
                ? nil : "\(function.rawValue) needs a numeric column, not \(type.rawValue)"
        case .min, .max:
            // PostgreSQL 15 has no min/max of boolean or uuid; JSON and blobs order differently on each backend.
            return [.bool, .json, .blob, .uuid].contains(type)
                ? "\(function.rawValue) of a \(type.rawValue) column has no order shared by every backend" : nil
        }
    }
}

extension TableSchema {
    /// The type of a column, by name.
    func columnType(of name: String) -> ColumnType? { index(of: name).map { columns[$0].type } }
}

/// A column type `sum` and `avg` take: integers sum to `Int64`, doubles and floats to `Double`, decimals to
/// an exact `Decimal`. Conform a type of your own whose column is numeric (money stored as integer cents, say).
public protocol SummableColumn: DatabaseValueConvertible {
    /// What the column's values sum to.
    associatedtype Sum: DatabaseValueConvertible
}

extension Int: SummableColumn { public typealias Sum = Int64 }
extension Int8: SummableColumn { public typealias Sum = Int64 }
extension Int16: SummableColumn { public typealias Sum = Int64 }
extension Int32: SummableColumn { public typealias Sum = Int64 }
extension Int64: SummableColumn { public typealias Sum = Int64 }
extension UInt8: SummableColumn { public typealias Sum = Int64 }
extension UInt16: SummableColumn { public typealias Sum = Int64 }
extension UInt32: SummableColumn { public typealias Sum = Int64 }
extension Double: SummableColumn { public typealias Sum = Double }
extension Float: SummableColumn { public typealias Sum = Double }
extension Decimal: SummableColumn { public typealias Sum = Decimal }
extension Optional: SummableColumn where Wrapped: SummableColumn { public typealias Sum = Wrapped.Sum }
