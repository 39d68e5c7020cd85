// MigrationStep: a versioned migration step written as a type instead of a value.

/// A migration step as a type: its name, its `up`, and optionally its `down`.
///
/// ```swift
/// enum AddEmail: MigrationStep {
///     static let name = "002_add_email"
///     static func up(_ up: inout MigrationSteps) { up.addColumn("email", .text, nullable: true, to: "user") }
///     static let down: (@Sendable (inout MigrationSteps) -> Void)? = { $0.dropColumn("email", from: "user") }
/// }
/// try await db.migrate([Migration(CreateUser.self), Migration(AddEmail.self)])
/// ```
public protocol MigrationStep {
    /// The step's unique name.
    static var name: String { get }
    /// Lists what applying the step does.
    static func up(_ up: inout MigrationSteps)
    /// Lists what reverting it does; nil (the default) when it cannot be reverted.
    static var down: (@Sendable (inout MigrationSteps) -> Void)? { get }
}

extension MigrationStep {
    /// Nil: the step cannot be reverted.
    public static var down: (@Sendable (inout MigrationSteps) -> Void)? { nil }
}

extension Migration {
    /// The step a ``MigrationStep`` type declares.
    public init(_ step: any MigrationStep.Type) {
        self.init(step.name, up: step.up, down: step.down)
    }
}
