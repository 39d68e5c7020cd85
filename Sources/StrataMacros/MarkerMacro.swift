// MarkerMacro: peer macro behind @Column and @Transient; expands to nothing, @Model reads the attributes.
import SwiftSyntax
import SwiftSyntaxMacros

public struct MarkerMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        []
    }
}
