// ChangeTrackedMacro: the `didSet` @Model adds to each tracked stored property.
import SwiftSyntax
import SwiftSyntaxMacros

/// Expands `@Strata._ChangeTracked(3)` to `didSet { _persistence?.markChanged(3) }`: the property stays
/// stored, and assigning it marks its column for the next `save` (a model never fetched nor saved has
/// no state to mark: its save writes every column).
public struct ChangeTrackedMacro: AccessorMacro {
    /// The accessor is written as it should read; formatting it (the default) ran swift-syntax's formatter over each
    /// property's `didSet` (about 4.4M instructions a property in a debug build of the plugin).
    public static var formatMode: FormatMode { .disabled }

    public static func expansion(
        of node: AttributeSyntax,
        providingAccessorsOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AccessorDeclSyntax] {
        guard case .argumentList(let arguments) = node.arguments,
            let column = arguments.first?.expression.as(IntegerLiteralExprSyntax.self)
        else { return [] }
        // Built as nodes rather than parsed from text: one of these runs for every tracked property of every model.
        let state = DeclReferenceExprSyntax(baseName: .identifier("_persistence"))
        let mark = FunctionCallExprSyntax(
            calledExpression: MemberAccessExprSyntax(
                base: OptionalChainingExprSyntax(expression: state),
                name: .identifier("markChanged")
            ),
            leftParen: .leftParenToken(),
            arguments: [LabeledExprSyntax(expression: column.trimmed)],
            rightParen: .rightParenToken()
        )
        return [
            AccessorDeclSyntax(
                accessorSpecifier: .keyword(.didSet, leadingTrivia: .spaces(4), trailingTrivia: .space),
                body: CodeBlockSyntax(
                    leftBrace: .leftBraceToken(trailingTrivia: .space),
                    statements: [CodeBlockItemSyntax(item: .expr(ExprSyntax(mark)))],
                    rightBrace: .rightBraceToken(leadingTrivia: .space)
                )
            )
        ]
    }
}
