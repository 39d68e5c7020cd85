// ModelMacro: @Model adds `_persistence` to a struct and an extension conforming it to Strata.Model.
import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

public struct ModelMacro: MemberMacro, ExtensionMacro {
    /// The generated source is laid out by hand; keep it as written.
    public static var formatMode: FormatMode { .disabled }

    /// Adds `var _persistence: Strata.PersistenceState<Self>? = nil`.
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
            "\(raw: analysis.accessPrefix)var _persistence: Strata.PersistenceState<\(raw: analysis.typeName)>? = nil"
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
