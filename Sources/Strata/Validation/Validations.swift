// Validations: the rules a model declares, run before every save; all failures are collected.
import Foundation

/// The validation rules of a model, declared in its `validations(_:)`:
///
/// ```swift
/// static func validations(_ v: inout Validations<Self>) {
///     v.presence(\.name)
///     v.uniqueness(\.email)
///     v.format(\.email, matches: #/.+@.+/#)
///     v.custom(\.name, "prefix") { $0.hasPrefix("LOL") }
/// }
/// ```
public struct Validations<M: Model> {
    @usableFromInline
    struct Rule {
        let field: String
        let name: String
        let message: String?
        /// Whether the rule reads the database (uniqueness); such rules are skipped without a connection.
        let needsDatabase: Bool
        let passes: (M, Transaction?) throws -> Bool
    }

    @usableFromInline var rules: [Rule] = []

    /// An empty list, for the model's ``Model/validations(_:)`` to fill.
    @inlinable public init() {}

    private mutating func add<V>(
        _ kp: KeyPath<M, V>, _ name: String, message: String?, needsDatabase: Bool = false,
        _ check: @escaping (V, M, Transaction?) throws -> Bool
    ) {
        let field = M.columnName(for: kp) ?? "\(kp)"
        rules.append(
            Rule(field: field, name: name, message: message, needsDatabase: needsDatabase) { m, tx in
                try check(m[keyPath: kp], m, tx)
            })
    }

    /// The string is not empty or whitespace only.
    public mutating func presence(_ kp: KeyPath<M, String>, message: String? = nil) {
        add(kp, "presence", message: message) { v, _, _ in !v.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty }
    }

    /// The optional string is set and not empty or whitespace only.
    public mutating func presence(_ kp: KeyPath<M, String?>, message: String? = nil) {
        add(kp, "presence", message: message) { v, _, _ in
            !(v ?? "").trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
        }
    }

    /// The optional value is set.
    public mutating func presence<V>(_ kp: KeyPath<M, V?>, message: String? = nil) {
        add(kp, "presence", message: message) { v, _, _ in v != nil }
    }

    /// The collection is not empty.
    public mutating func presence<C: Collection>(_ kp: KeyPath<M, C>, message: String? = nil) {
        add(kp, "presence", message: message) { v, _, _ in !v.isEmpty }
    }

    /// No other row has this value (NULL is never a duplicate, as in a UNIQUE index). It reads the database,
    /// so ``Model/validationErrors()`` (without a connection) skips it.
    public mutating func uniqueness<V: DatabaseValueConvertible>(_ kp: KeyPath<M, V>, message: String? = nil) {
        guard let column = M.columnName(for: kp) else {
            add(kp, "uniqueness", message: message, needsDatabase: true) { _, _, _ in
                throw StrataError.unknownColumn(model: M.modelName, column: "\(kp)")
            }
            return
        }
        add(kp, "uniqueness", message: message, needsDatabase: true) { v, m, tx in
            guard let tx else { return true }
            let value = v.databaseValue
            if value.isNull { return true }
            var q = M.query(on: tx).where(Condition(.compare(.equal, .column(column), .value(value))))
            if let id = m.id, M.schema.hasCompositeKey {
                q = q.where(Condition(.not(M.keyEquality(id))))  // not the model's own row: any key column differs
            } else if let id = m.id {
                let pk = M.primaryKeyColumn
                q = q.where(Condition(.compare(.notEqual, .column(pk), .value(id.databaseValue))))
            }
            return try !q.exists()
        }
    }

    /// The whole string matches the regex.
    public mutating func format<Output>(
        _ kp: KeyPath<M, String>, matches regex: Regex<Output>, message: String? = nil
    ) {
        add(kp, "format", message: message) { v, _, _ in (try? regex.wholeMatch(in: v)) != nil }
    }

    /// The string has between `range` characters.
    public mutating func length(_ kp: KeyPath<M, String>, in range: ClosedRange<Int>, message: String? = nil) {
        add(kp, "length", message: message) { v, _, _ in range.contains(v.count) }
    }

    /// The value lies in the range.
    public mutating func range<V: Comparable>(_ kp: KeyPath<M, V>, in range: ClosedRange<V>, message: String? = nil) {
        add(kp, "range", message: message) { v, _, _ in range.contains(v) }
    }

    /// A rule of your own: `check` returns true when the value is valid; `name` names the rule in errors and
    /// `message` says what is wrong (`is invalid` by default).
    ///
    /// ```swift
    /// v.custom(\.name, "prefix", message: "must not start with LOL") { !$0.hasPrefix("LOL") }
    /// ```
    public mutating func custom<V>(
        _ kp: KeyPath<M, V>, _ name: String, message: String? = nil, _ check: @escaping (V) -> Bool
    ) {
        add(kp, name, message: message) { v, _, _ in check(v) }
    }

    /// Runs every rule and throws all failures at once. Inlinable, so a model without rules pays nothing.
    @inlinable
    func run(_ model: M, _ tx: Transaction) throws {
        if !rules.isEmpty { try runRules(model, tx) }
    }

    @usableFromInline
    func runRules(_ model: M, _ tx: Transaction) throws {
        let failures = try self.failures(model, tx)
        if !failures.isEmpty { throw StrataError.validationFailed(failures) }
    }

    /// The rules `model` fails; without a connection, the rules that read the database are skipped.
    func failures(_ model: M, _ tx: Transaction?) throws -> [ValidationError] {
        var failures: [ValidationError] = []
        for rule in rules where (tx != nil || !rule.needsDatabase) {
            if try !rule.passes(model, tx) {
                failures.append(
                    ValidationError(model: M.modelName, field: rule.field, rule: rule.name, message: rule.message))
            }
        }
        return failures
    }
}

extension Model {
    /// The validations this model fails, checked without a database: every rule except those that read it
    /// (``Validations/uniqueness(_:message:)``), which `save` still runs.
    ///
    /// ```swift
    /// let errors = account.validationErrors()   // [ConfAccount.name fails presence: can't be blank]
    /// ```
    public func validationErrors() -> [ValidationError] {
        var v = Validations<Self>()
        Self.validations(&v)
        return (try? v.failures(self, nil)) ?? []
    }

    /// Whether ``validationErrors()`` is empty: the model passes every rule that needs no database.
    public var isValid: Bool { validationErrors().isEmpty }
}
