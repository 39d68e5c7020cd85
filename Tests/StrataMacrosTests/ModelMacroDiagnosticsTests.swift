// ModelMacro tests: every error @Model reports, where it points, and that nothing is generated then.
import SwiftSyntaxMacrosTestSupport
import XCTest

final class ModelMacroDiagnosticsTests: XCTestCase {
    func testOnlyStructs() {
        assertMacroExpansion(
            """
            @Model
            class User {
                var id: Int64?
            }
            @Model
            enum Kind {
                case a
            }
            @Model
            actor Counter {
                var id: Int64?
            }
            """,
            expandedSource: """
                class User {
                    var id: Int64?
                }
                enum Kind {
                    case a
                }
                actor Counter {
                    var id: Int64?
                }
                """,
            diagnostics: [
                DiagnosticSpec(message: "@Model can only be applied to a struct", line: 2, column: 1),
                DiagnosticSpec(message: "@Model can only be applied to a struct", line: 6, column: 1),
                DiagnosticSpec(message: "@Model can only be applied to a struct", line: 10, column: 1),
            ],
            macroSpecs: testMacros
        )
    }

    func testMissingID() {
        assertMacroExpansion(
            """
            @Model
            struct Note {
                var text: String
                static var id: Int64? = nil
            }
            """,
            expandedSource: """
                struct Note {
                    var text: String
                    static var id: Int64? = nil
                }
                """,
            diagnostics: [
                DiagnosticSpec(message: "@Model requires a primary key property 'var id: Int64?'", line: 2, column: 8)
            ],
            macroSpecs: testMacros
        )
    }

    func testInvalidID() {
        let message = "'id' must be declared as 'var id: Int64?' (or UUID?, String?)"
        assertMacroExpansion(
            """
            @Model
            struct A {
                var id: Int
            }
            @Model
            struct B {
                let id: Int64?
            }
            @Model
            struct C {
                var id: Int64? { nil }
            }
            @Model
            struct D {
                @Transient var id: Int64?
            }
            """,
            expandedSource: """
                struct A {
                    var id: Int
                }
                struct B {
                    let id: Int64?
                }
                struct C {
                    var id: Int64? { nil }
                }
                struct D {
                    var id: Int64?
                }
                """,
            diagnostics: [
                DiagnosticSpec(message: message, line: 3, column: 9),
                DiagnosticSpec(message: message, line: 7, column: 9),
                DiagnosticSpec(message: message, line: 11, column: 9),
                DiagnosticSpec(message: message, line: 15, column: 20),
            ],
            macroSpecs: testMacros
        )
    }

    func testLetWithInitialValue() {
        assertMacroExpansion(
            """
            @Model
            struct Post {
                var id: Int64?
                let kind = "post"
                @Transient let version = 2
            }
            """,
            expandedSource: """
                struct Post {
                    var id: Int64?
                    let kind = "post"
                    let version = 2
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "a 'let' property with an initial value cannot be stored; "
                        + "make it 'var' or mark it @Transient",
                    line: 4,
                    column: 9
                )
            ],
            macroSpecs: testMacros
        )
    }

    func testTransientWithoutInitialValue() {
        assertMacroExpansion(
            """
            @Model
            struct Post {
                var id: Int64?
                @Transient var cache: String
                @Transient var note: String?
                @Transient let flag: Bool?
            }
            """,
            expandedSource: """
                struct Post {
                    var id: Int64?
                    var cache: String
                    var note: String?
                    let flag: Bool?
                }
                """,
            diagnostics: [
                DiagnosticSpec(message: "a @Transient property needs an initial value", line: 4, column: 20),
                DiagnosticSpec(message: "a @Transient property needs an initial value", line: 6, column: 20),
            ],
            macroSpecs: testMacros
        )
    }

    func testUnstorableTypes() {
        let suffix = "which cannot be stored in a column; mark it @Transient or use a DatabaseValueConvertible type"
        assertMacroExpansion(
            """
            @Model
            struct Widget {
                var id: Int64?
                var size: (Int, Int)
                var onTap: @Sendable () -> Void
                var shape: any Shape
                var body: some View
                var handlers: [(() -> Void)]?
                var untyped = makeThing()
            }
            """,
            expandedSource: """
                struct Widget {
                    var id: Int64?
                    var size: (Int, Int)
                    var onTap: @Sendable () -> Void
                    var shape: any Shape
                    var body: some View
                    var handlers: [(() -> Void)]?
                    var untyped = makeThing()
                }
                """,
            diagnostics: [
                DiagnosticSpec(message: "'size' has type '(Int, Int)', \(suffix)", line: 4, column: 15),
                DiagnosticSpec(message: "'onTap' has type '@Sendable () -> Void', \(suffix)", line: 5, column: 16),
                DiagnosticSpec(message: "'shape' has type 'any Shape', \(suffix)", line: 6, column: 16),
                DiagnosticSpec(message: "'body' has type 'some View', \(suffix)", line: 7, column: 15),
                DiagnosticSpec(message: "'handlers' has type '[(() -> Void)]?', \(suffix)", line: 8, column: 19),
            ],
            macroSpecs: testMacros
        )
    }

    func testGenericStruct() {
        assertMacroExpansion(
            """
            @Model
            struct Box<Value> {
                var id: Int64?
                var value: Value
            }
            """,
            expandedSource: """
                struct Box<Value> {
                    var id: Int64?
                    var value: Value
                }
                """,
            diagnostics: [
                DiagnosticSpec(message: "@Model does not support generic structs", line: 2, column: 11)
            ],
            macroSpecs: testMacros
        )
    }

    func testDuplicateColumns() {
        assertMacroExpansion(
            """
            @Model
            struct Membership {
                var id: Int64?
                @Column("a") var first: String
                @Column("a") var second: String
                var userID: Int64?
                @Column("user_id") var owner: Int64?
            }
            """,
            expandedSource: """
                struct Membership {
                    var id: Int64?
                    var first: String
                    var second: String
                    var userID: Int64?
                    var owner: Int64?
                }
                """,
            diagnostics: [
                DiagnosticSpec(message: "column 'a' is used by both 'first' and 'second'", line: 5, column: 22),
                DiagnosticSpec(message: "column 'user_id' is used by both 'userID' and 'owner'", line: 7, column: 28),
            ],
            macroSpecs: testMacros
        )
    }

    func testInvalidColumnNames() {
        let message = "@Column needs a non-empty string literal"
        assertMacroExpansion(
            #"""
            @Model
            struct Item {
                var id: Int64?
                @Column("") var a: Int
                @Column(name) var b: Int
                @Column("c\(n)") var c: Int
                @Column var d: Int
            }
            """#,
            expandedSource: #"""
                struct Item {
                    var id: Int64?
                    var a: Int
                    var b: Int
                    var c: Int
                    var d: Int
                }
                """#,
            diagnostics: [
                DiagnosticSpec(message: message, line: 4, column: 13),
                DiagnosticSpec(message: message, line: 5, column: 13),
                DiagnosticSpec(message: message, line: 6, column: 13),
                DiagnosticSpec(message: message, line: 7, column: 5),
            ],
            macroSpecs: testMacros
        )
    }

    func testInvalidTableNameAndTuplePattern() {
        assertMacroExpansion(
            """
            @Model(table: "")
            struct Pair {
                var id: Int64?
                var (left, right): (Int, Int)
            }
            """,
            expandedSource: """
                struct Pair {
                    var id: Int64?
                    var (left, right): (Int, Int)
                }
                """,
            diagnostics: [
                DiagnosticSpec(message: "@Model(table:) needs a non-empty string literal", line: 1, column: 15),
                DiagnosticSpec(
                    message: "@Model cannot store properties declared with a tuple pattern; "
                        + "declare each property separately",
                    line: 4,
                    column: 9
                ),
            ],
            macroSpecs: testMacros
        )
    }
}
