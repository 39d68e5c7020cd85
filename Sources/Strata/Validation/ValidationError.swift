// ValidationError: one failed validation rule, naming the model, field and rule, with a message for people.

/// One validation that failed.
public struct ValidationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The model whose validation failed (its type name).
    public var model: String
    /// The column the rule checked.
    public var field: String
    /// The rule's name: `presence`, `uniqueness`, `format`, `length`, `range` or a custom name.
    public var rule: String
    /// What is wrong, for a person: the rule's own message (`can't be blank`), or the one the model gave.
    public var message: String

    /// A failure of `rule` on `field`; without a message, the rule's default one (``defaultMessage(for:)``).
    public init(model: String, field: String, rule: String, message: String? = nil) {
        self.model = model
        self.field = field
        self.rule = rule
        self.message = message ?? Self.defaultMessage(for: rule)
    }

    /// The message a built-in rule gives when the model names none: `presence` → `can't be blank`,
    /// `uniqueness` → `has already been taken`, `format` → `is invalid`, `length` → `has the wrong length`,
    /// `range` → `is out of range`; any other rule → `is invalid`.
    public static func defaultMessage(for rule: String) -> String {
        switch rule {
        case "presence": return "can't be blank"
        case "uniqueness": return "has already been taken"
        case "length": return "has the wrong length"
        case "range": return "is out of range"
        default: return "is invalid"
        }
    }

    /// `Model.field fails rule: message`, for logs and test failures.
    public var description: String { "\(model).\(field) fails \(rule): \(message)" }
}
