// ColumnExpression+JSONPath: `json(\.settings, "theme", as: String.self)`, a typed value inside a Codable column.

/// A Swift type the value at a JSON path can be read as: `String`, `Bool`, the signed integers and `Double`.
public protocol JSONPathValue: DatabaseValueConvertible {
    /// The JSON type the path's value must have; a value of another JSON type reads as NULL.
    static var jsonPathType: JSONPath.ValueType { get }
}

extension String: JSONPathValue { public static var jsonPathType: JSONPath.ValueType { .text } }
extension Bool: JSONPathValue { public static var jsonPathType: JSONPath.ValueType { .bool } }
extension Int: JSONPathValue { public static var jsonPathType: JSONPath.ValueType { .integer } }
extension Int64: JSONPathValue { public static var jsonPathType: JSONPath.ValueType { .integer } }
extension Int32: JSONPathValue { public static var jsonPathType: JSONPath.ValueType { .integer } }
extension Int16: JSONPathValue { public static var jsonPathType: JSONPath.ValueType { .integer } }
extension Int8: JSONPathValue { public static var jsonPathType: JSONPath.ValueType { .integer } }
extension Double: JSONPathValue { public static var jsonPathType: JSONPath.ValueType { .double } }

/// The value at a path inside a `Codable` (JSON) column, read as `type`: filter, order and select by it.
///
/// ```swift
/// struct Settings: Codable, Hashable { var theme: String; var fontSize: Int; var recent: [String] }
/// try await Profile.query(on: db)
///     .where(json(\.settings, "theme", as: String.self) == "dark")
///     .order(json(\.settings, "fontSize", as: Int.self), .descending)
///     .all()
/// ```
///
/// Each step is a coding key (`"theme"`, as the stored JSON spells it: a type with custom `CodingKeys` uses
/// its key's string value) or an array index (`0`). The value is nil where the path leads nowhere (a missing key,
/// an index past the end, a step into a scalar), where it holds JSON `null`, and where it holds another JSON type
/// than `type` asks (a string read as an `Int`), on every driver; see ``JSONPath`` for the SQL.
///
/// - Parameters:
///   - kp: a column of the model holding a `Codable` value.
///   - steps: coding keys and array indexes from the value's root.
///   - type: the Swift type of the value at the end of the path.
/// - Returns: the value, or nil; a path on a column that is not JSON, or with no step, an empty key, a key
///   holding NUL or `"`, a negative index, fails the query with ``StrataError/invalidQuery(_:)`` naming the part.
public func json<M: Model, C, V: JSONPathValue>(_ kp: KeyPath<M, C>, _ steps: JSONPath.Step..., as type: V.Type)
    -> ColumnExpression<M, V?>
{
    json(kp, path: steps, as: type)
}

/// The value at a path inside a `Codable` column, with the steps as an array (see ``json(_:_:as:)``).
public func json<M: Model, C, V: JSONPathValue>(_ kp: KeyPath<M, C>, path steps: [JSONPath.Step], as: V.Type)
    -> ColumnExpression<M, V?>
{
    guard let name = M.columnName(for: kp) else {
        return ColumnExpression(.failure(.unknownColumn(model: M.modelName, column: "\(kp)")))
    }
    let path = JSONPath(steps, as: V.jsonPathType)
    let part = path.text(after: M.modelName + "." + name)
    if let sealed = M.schema.encryptedColumn(named: name, model: M.modelName) {
        return ColumnExpression(.failure(sealed.error("a JSON path (\(part)) cannot read an envelope")))
    }
    if let type = M.schema.columnType(of: name), type != .json {
        return ColumnExpression(
            .failure(
                .invalidQuery(
                    "JSON path \(part): \(M.modelName).\(name) is a \(type.rawValue) column, "
                        + "not a Codable (JSON) one")))
    }
    do throws(StrataError) {
        try path.validate(column: M.modelName + "." + name)
    } catch {
        return ColumnExpression(.failure(error))
    }
    return ColumnExpression(.success(.jsonPath(.column(name), path)))
}

extension Projection {
    /// The value at a path inside a `Codable` column, for each row (see ``json(_:_:as:)``), read under the key
    /// `settings.theme`:
    ///
    /// ```swift
    /// let rows = try await Profile.query(on: db)
    ///     .select(.column(\.name), .json(\.settings, "theme", as: String.self))   // [(String, String?)]
    /// ```
    ///
    /// Keys and indexes are plain `String` and `Int` here (a select's items are generic over their types, where a
    /// literal cannot become a ``JSONPath/Step``); ``json(_:path:as:)`` takes any path.
    public static func json<C, V: JSONPathValue>(_ kp: KeyPath<M, C>, _ key: String, as type: V.Type)
        -> Projection<M, V?>
    {
        json(kp, path: [.key(key)], as: type)
    }

    /// The value at an index of a `Codable` array column.
    public static func json<C, V: JSONPathValue>(_ kp: KeyPath<M, C>, _ index: Int, as type: V.Type)
        -> Projection<M, V?>
    {
        json(kp, path: [.index(index)], as: type)
    }

    /// The value at a key of a key of a `Codable` column (`"owner", "name"`).
    public static func json<C, V: JSONPathValue>(_ kp: KeyPath<M, C>, _ key: String, _ key2: String, as type: V.Type)
        -> Projection<M, V?>
    {
        json(kp, path: [.key(key), .key(key2)], as: type)
    }

    /// The value at an index of an array at a key of a `Codable` column (`"tags", 0`).
    public static func json<C, V: JSONPathValue>(_ kp: KeyPath<M, C>, _ key: String, _ index: Int, as type: V.Type)
        -> Projection<M, V?>
    {
        json(kp, path: [.key(key), .index(index)], as: type)
    }

    /// The value at a path of any length inside a `Codable` column.
    public static func json<C, V: JSONPathValue>(_ kp: KeyPath<M, C>, path steps: [JSONPath.Step], as type: V.Type)
        -> Projection<M, V?>
    {
        let e = Strata.json(kp, path: steps, as: type)
        let key = M.columnName(for: kp).map { JSONPath(steps, as: V.jsonPathType).text(after: $0) } ?? "\(kp)"
        let result = e.result
        var p = Projection<M, V?>(key: key) { _ in result.map { .expression($0) } }
        p.isText = V.jsonPathType == .text
        return p
    }
}

extension Index {
    /// An index on the value at a JSON path, for a model's ``Model/indexes``: a query that filters or orders by
    /// the same path (same keys, same type) can use it.
    ///
    /// ```swift
    /// static var indexes: [Index] { [.on(json(\Profile.settings, "theme", as: String.self))] }
    /// ```
    ///
    /// SQLite and PostgreSQL index the path's whole typed expression (`CREATE INDEX "profile_settings_theme_idx"
    /// ON "profile" ((CASE WHEN json_type("settings", '$."theme"') = 'text' THEN … END))`); the memory driver keeps
    /// the path's values in order, built by the first query that compares the path with a value and kept through
    /// writes, so each document is parsed once, not once per query. A bad path fails the migration with its error;
    /// a unique index on a path is refused (``StrataError/invalidQuery(_:)``).
    ///
    /// - Parameters:
    ///   - e: the path, built by ``json(_:_:as:)``.
    ///   - name: the index's name, or nil for `<table>_<column>_<keys>_idx`.
    public static func on<M: Model, V>(_ e: ColumnExpression<M, V>, name: String? = nil) -> Index {
        var index = Index(columns: [], name: name)
        switch e.result {
        case .success(let expression): index.expression = expression
        case .failure(let error): index.problem = error
        }
        return index
    }
}
