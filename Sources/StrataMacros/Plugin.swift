// StrataMacros: compiler plugin entry point listing the macros Strata provides.
import SwiftCompilerPlugin
import SwiftSyntaxMacros

@main
struct StrataMacrosPlugin: CompilerPlugin {
    let providingMacros: [Macro.Type] = [
        ModelMacro.self,
        MarkerMacro.self,
        ChangeTrackedMacro.self,
    ]
}
