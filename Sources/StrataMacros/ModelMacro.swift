// ModelMacro: @Model adds `_persistence` and change tracking to a struct, and an extension conforming it to
// Strata.Model.
import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

public struct ModelMacro: MemberMacro, MemberAttributeMacro, ExtensionMacro {
    /// The generated source is laid out by hand; keep it as written.
    public static var formatMode: FormatMode { .disabled }

    /// Adds `@Strata.PersistenceStorage var _persistence: Strata.PersistenceState? = nil` (the wrapper keeps the
    /// state out of the model's `==`, `hash` and `Codable` form).
    ///
    /// Diagnostics are reported by the extension role only, so they appear once; this role
    /// just stays silent when the declaration has errors.
    public static func expansion(
        of node: AttributeSyntax,
        providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        let analysis = ModelAnalysis(attribute: node, declaration: declaration)
        guard !analysis.hasErrors else { return [] }
        return [
            "@Strata.PersistenceStorage \(raw: analysis.accessPrefix)var _persistence: Strata.PersistenceState? = nil"
        ]
    }

    /// Marks each tracked stored property `@Strata._ChangeTracked(column)`, whose `didSet` records the
    /// assignment, so `save` knows what to update without a snapshot of the fetched row.
    public static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingAttributesFor member: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AttributeSyntax] {
        guard let variable = member.as(VariableDeclSyntax.self), variable.bindings.count == 1,
            let name = variable.bindings.first?.pattern.as(IdentifierPatternSyntax.self)?.identifier.text
        else { return [] }
        let analysis = ModelAnalysis(attribute: node, declaration: declaration)
        guard !analysis.hasErrors,
            let column = analysis.properties.firstIndex(where: { $0.name == name && $0.isTracked })
        else { return [] }
        // Built as nodes rather than parsed from text: this runs once for every member of every model.
        return [
            AttributeSyntax(
                attributeName: MemberTypeSyntax(
                    baseType: IdentifierTypeSyntax(name: .identifier("Strata")), name: .identifier("_ChangeTracked")),
                leftParen: .leftParenToken(),
                arguments: .argumentList([LabeledExprSyntax(expression: IntegerLiteralExprSyntax(column))]),
                rightParen: .rightParenToken()
            )
        ]
    }

    /// Adds `schema`, `columnName(for:)`, `init(row:)` and `databaseValues`, plus the
    /// `Strata.Model` conformance when the struct does not declare it already.
    public static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        let analysis = ModelAnalysis(attribute: node, declaration: declaration)
        for diagnostic in analysis.diagnostics {
            context.diagnose(diagnostic)
        }
        guard !analysis.hasErrors else { return [] }
        let source = analysis.extensionSource(for: type.trimmedDescription, addingConformance: !protocols.isEmpty)
        return [try ExtensionDeclSyntax("\(raw: source)")]
    }
}
