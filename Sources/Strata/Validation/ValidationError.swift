// ValidationError: one failed validation rule, naming the model, field and rule.

/// One validation that failed.
public struct ValidationError: Error, Sendable, Hashable, CustomStringConvertible {
    public var model: String
    /// The column the rule checked.
    public var field: String
    /// The rule's name: `presence`, `uniqueness`, `format`, `length`, `range` or a custom name.
    public var rule: String

    public init(model: String, field: String, rule: String) {
        self.model = model
        self.field = field
        self.rule = rule
    }

    public var description: String { "\(model).\(field) fails \(rule)" }
}
