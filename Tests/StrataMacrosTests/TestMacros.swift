// ModelMacro tests: the macro table handed to assertMacroExpansion.
import StrataMacros
import SwiftSyntax
import SwiftSyntaxMacroExpansion

/// As the compiler sees it for a struct that does not yet conform to `Model`.
let testMacros: [String: MacroSpec] = [
    "Model": MacroSpec(
        type: ModelMacro.self,
        conformances: [TypeSyntax(IdentifierTypeSyntax(name: .identifier("Model")))]
    ),
    "Column": MacroSpec(type: MarkerMacro.self),
    "Transient": MacroSpec(type: MarkerMacro.self),
    "CreatedAt": MacroSpec(type: MarkerMacro.self),
    "UpdatedAt": MacroSpec(type: MarkerMacro.self),
    "Version": MacroSpec(type: MarkerMacro.self),
    "Encrypted": MacroSpec(type: MarkerMacro.self),
    "Generated": MacroSpec(type: MarkerMacro.self),
    "_ChangeTracked": MacroSpec(type: ChangeTrackedMacro.self),
]
