// ModelMacro tests: `@Model(primaryKey: [...])`, the composite key's errors and where they point.
import SwiftSyntaxMacrosTestSupport
import XCTest

final class ModelMacroCompositeKeyTests: XCTestCase {
    func testCompositeKeyExpansion() {
        assertMacroExpansion(
            #"""
            @Model(table: "line", primaryKey: ["orderID", "sku"])
            public struct Line {
                public var orderID: Int64
                public var sku: String
                public var qty: Int = 1
            }
            """#,
            expandedSource: #"""
                public struct Line {
                    @Strata._ChangeTracked(0)
                    public var orderID: Int64
                    @Strata._ChangeTracked(1)
                    public var sku: String
                    @Strata._ChangeTracked(2)
                    public var qty: Int = 1

                    @Strata.PersistenceStorage public var _persistence: Strata.PersistenceState? = nil
                }

                extension Line: Strata.Model {
                    public static let schema = Strata.TableSchema(name: "line", columns: [
                        Strata.TableColumn(\Line.orderID, "order_id", primaryKey: true),
                        Strata.TableColumn(\Line.sku, "sku", primaryKey: true),
                        Strata.TableColumn(\Line.qty, "qty", default: 1, constant: true),
                    ])
                    public struct ID: Strata.CompositeKey {
                        public var orderID: Int64
                        public var sku: String
                        public init(orderID: Int64, sku: String) {
                            self.orderID = orderID
                            self.sku = sku
                        }
                        public var keyValues: [Strata.DatabaseValue] { [self.orderID.databaseValue, self.sku.databaseValue] }
                        public func appendKeyValues(to values: inout [Strata.DatabaseValue]) {
                            values.append(self.orderID.databaseValue)
                            values.append(self.sku.databaseValue)
                        }
                        public static var keyColumns: [String] { ["order_id", "sku"] }
                    }
                    public var id: ID? {
                        get { ID(orderID: self.orderID, sku: self.sku) }
                        set {
                            guard let newValue else { return }
                            if self.orderID != newValue.orderID { self.orderID = newValue.orderID }
                            if self.sku != newValue.sku { self.sku = newValue.sku }
                        }
                    }
                    public init(row: Strata.Row) throws(Strata.StrataError) {
                        try self.init(
                            _strataDecodedRow: (),
                            row.decode(0),
                            row.decode(1),
                            row.decode(2, default: 1)
                        )
                    }
                    init(_strataDecodedRow: Void, _ v0: Int64, _ v1: String, _ v2: Int) {
                        self.orderID = v0
                        self.sku = v1
                        self.qty = v2
                    }
                    public var databaseValues: [Strata.DatabaseValue] { _databaseValuesAppended() }
                    public func appendDatabaseValues(to values: inout [Strata.DatabaseValue]) {
                        values.append(self.orderID.databaseValue)
                        values.append(self.sku.databaseValue)
                        values.append(self.qty.databaseValue)
                    }
                }
                """#,
            macroSpecs: testMacros
        )
    }

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
