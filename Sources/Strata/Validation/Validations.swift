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
        let passes: (M, Transaction) throws -> Bool
    }

    @usableFromInline var rules: [Rule] = []

    @inlinable public init() {}

    private mutating func add<V>(
        _ kp: KeyPath<M, V>, _ name: String, _ check: @escaping (V, M, Transaction) throws -> Bool
    ) {
        let field = M.columnName(for: kp) ?? "\(kp)"
        rules.append(Rule(field: field, name: name) { m, tx in try check(m[keyPath: kp], m, tx) })
    }

    /// The string is not empty or whitespace only.
    public mutating func presence(_ kp: KeyPath<M, String>) {
        add(kp, "presence") { v, _, _ in !v.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty }
    }

    /// The optional string is set and not empty or whitespace only.
    public mutating func presence(_ kp: KeyPath<M, String?>) {
        add(kp, "presence") { v, _, _ in !(v ?? "").trimmingCharacters(in: .whitespacesAndNewlines).isEmpty }
    }

    /// The optional value is set.
    public mutating func presence<V>(_ kp: KeyPath<M, V?>) {
        add(kp, "presence") { v, _, _ in v != nil }
    }

    /// The collection is not empty.
    public mutating func presence<C: Collection>(_ kp: KeyPath<M, C>) {
        add(kp, "presence") { v, _, _ in !v.isEmpty }
    }

    /// No other row has this value (NULL is never a duplicate, as in a UNIQUE index).
    public mutating func uniqueness<V: DatabaseValueConvertible>(_ kp: KeyPath<M, V>) {
        guard let column = M.columnName(for: kp) else {
            add(kp, "uniqueness") { _, _, _ in throw StrataError.unknownColumn(model: M.modelName, column: "\(kp)") }
            return
        }
        add(kp, "uniqueness") { v, m, tx in
            let value = v.databaseValue
            if value.isNull { return true }
            var q = M.query(on: tx).where(Condition(.compare(.equal, .column(column), .value(value))))
            if let id = m.id {
                let pk = M.primaryKeyColumn
                q = q.where(Condition(.compare(.notEqual, .column(pk), .value(.integer(id)))))
            }
            return try !q.exists()
        }
    }

    /// The whole string matches the regex.
    public mutating func format<Output>(_ kp: KeyPath<M, String>, matches regex: Regex<Output>) {
        add(kp, "format") { v, _, _ in (try? regex.wholeMatch(in: v)) != nil }
    }

    /// The string has between `range` characters.
    public mutating func length(_ kp: KeyPath<M, String>, in range: ClosedRange<Int>) {
        add(kp, "length") { v, _, _ in range.contains(v.count) }
    }

    /// The value lies in the range.
    public mutating func range<V: Comparable>(_ kp: KeyPath<M, V>, in range: ClosedRange<V>) {
        add(kp, "range") { v, _, _ in range.contains(v) }
    }

    /// A rule of your own: `check` returns true when the value is valid; `name` names the rule in errors.
    public mutating func custom<V>(_ kp: KeyPath<M, V>, _ name: String, _ check: @escaping (V) -> Bool) {
        add(kp, name) { v, _, _ in check(v) }
    }

    /// Runs every rule and throws all failures at once. Inlinable, so a model without rules pays nothing.
    @inlinable
    func run(_ model: M, _ tx: Transaction) throws {
        if !rules.isEmpty { try runRules(model, tx) }
    }

    @usableFromInline
    func runRules(_ model: M, _ tx: Transaction) throws {
        var failures: [ValidationError] = []
        for rule in rules where try !rule.passes(model, tx) {
            failures.append(ValidationError(model: M.modelName, field: rule.field, rule: rule.name))
        }
        if !failures.isEmpty { throw StrataError.validationFailed(failures) }
    }
}
