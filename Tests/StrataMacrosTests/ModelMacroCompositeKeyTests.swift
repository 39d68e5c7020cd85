// ModelMacro tests: `@Model(primaryKey: [...])`, the composite key's errors and where they point.
import SwiftSyntaxMacrosTestSupport
import XCTest

final class ModelMacroCompositeKeyTests: XCTestCase {
    func testOneNameIsNotACompositeKey() {
        assertMacroExpansion(
            """
            @Model(primaryKey: ["a"])
            struct Pair {
                var a: Int64
            }
            """,
            expandedSource: """
                struct Pair {
                    var a: Int64
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "@Model(primaryKey:) needs two or more properties; a one-column key is 'var id'",
                    line: 1, column: 1),
                DiagnosticSpec(message: "@Model requires a primary key property 'var id: Int64?'", line: 2, column: 8),
            ],
            macroSpecs: testMacros
        )
    }

    func testUnknownAndOptionalKeyProperties() {
        assertMacroExpansion(
            """
            @Model(primaryKey: ["a", "b", "c"])
            struct Triple {
                var a: Int64
                var b: Int64?
            }
            """,
            expandedSource: """
                struct Triple {
                    var a: Int64
                    var b: Int64?
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "@Model(primaryKey:) 'b' must be a plain stored 'var' with a non-optional type annotation "
                        + "(Int64, Int, String or UUID)",
                    line: 1, column: 1),
                DiagnosticSpec(
                    message: "@Model(primaryKey:) names 'c', which is not a stored property of the struct",
                    line: 1, column: 1),
            ],
            macroSpecs: testMacros
        )
    }

    func testCompositeKeyWithIDAndRepeatedName() {
        assertMacroExpansion(
            """
            @Model(primaryKey: ["a", "b"])
            struct WithID {
                var id: Int64?
                var a: Int64
                var b: Int64
            }
            @Model(primaryKey: ["a", "a"])
            struct Twice {
                var a: Int64
            }
            """,
            expandedSource: """
                struct WithID {
                    var id: Int64?
                    var a: Int64
                    var b: Int64
                }
                struct Twice {
                    var a: Int64
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "@Model(primaryKey:) generates 'id' from the key's properties: remove 'var id'",
                    line: 2, column: 8),
                DiagnosticSpec(message: "@Model(primaryKey:) names 'a' twice", line: 7, column: 26),
                DiagnosticSpec(message: "@Model requires a primary key property 'var id: Int64?'", line: 8, column: 8),
            ],
            macroSpecs: testMacros
        )
    }
}
