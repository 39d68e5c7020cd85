// ChangeTrackedMacro: the `didSet` @Model adds to each tracked stored property.
import SwiftSyntax
import SwiftSyntaxMacros

/// Expands `@Strata._ChangeTracked(3)` to `didSet { _persistence?.markChanged(3) }`: the property stays
/// stored, and assigning it marks its column for the next `save` (a model never fetched nor saved has
/// no state to mark: its save writes every column).
public struct ChangeTrackedMacro: AccessorMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingAccessorsOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AccessorDeclSyntax] {
        guard case .argumentList(let arguments) = node.arguments,
            let column = arguments.first?.expression.as(IntegerLiteralExprSyntax.self)
        else { return [] }
        return ["didSet { _persistence?.markChanged(\(column.trimmed)) }"]
    }
}
