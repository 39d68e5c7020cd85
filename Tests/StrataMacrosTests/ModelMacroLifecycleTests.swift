// ModelMacro tests: callbacks in the body turn hasLifecycleCallbacks on (unless the struct sets it), and
// @CreatedAt, @UpdatedAt and @Version become column roles, on the right types only.
import StrataMacros
import SwiftSyntaxMacrosTestSupport
import XCTest

final class ModelMacroLifecycleTests: XCTestCase {
    func testCallbackInBodySetsTheFlag() {
        assertMacroExpansion(
            #"""
            @Model
            struct Post {
                var id: Int64?
                mutating func willSave(_ tx: Transaction) throws {}
            }
            """#,
            expandedSource: #"""
                struct Post {
                    @Strata._ChangeTracked(0)
                    var id: Int64?
                    mutating func willSave(_ tx: Transaction) throws {}

                    @Strata.PersistenceStorage var _persistence: Strata.PersistenceState? = nil
                }

                extension Post: Strata.Model {
                    static let schema = Strata.TableSchema(name: "post", columns: [
                        Strata.TableColumn(\Post.id, "id", primaryKey: true),
                    ])
                    static var hasLifecycleCallbacks: Bool { true }
                    init(row: Strata.Row) throws(Strata.StrataError) {
                        try self.init(
                            _strataDecodedRow: (),
                            row.decode(0)
                        )
                    }
                    init(_strataDecodedRow: Void, _ v0: Int64?) {
                        self.id = v0
                    }
                    var databaseValues: [Strata.DatabaseValue] { _databaseValuesAppended() }
                    func appendDatabaseValues(to values: inout [Strata.DatabaseValue]) {
                        values.append(self.id.databaseValue)
                    }
                }
                """#,
            macroSpecs: testMacros
        )
    }

    func testOwnFlagIsKept() {
        assertMacroExpansion(
            #"""
            @Model
            struct Post {
                var id: Int64?
                static let hasLifecycleCallbacks = false
                func didSave(_ tx: Transaction) throws {}
            }
            """#,
            expandedSource: #"""
                struct Post {
                    @Strata._ChangeTracked(0)
                    var id: Int64?
                    static let hasLifecycleCallbacks = false
                    func didSave(_ tx: Transaction) throws {}

                    @Strata.PersistenceStorage var _persistence: Strata.PersistenceState? = nil
                }

                extension Post: Strata.Model {
                    static let schema = Strata.TableSchema(name: "post", columns: [
                        Strata.TableColumn(\Post.id, "id", primaryKey: true),
                    ])
                    init(row: Strata.Row) throws(Strata.StrataError) {
                        try self.init(
                            _strataDecodedRow: (),
                            row.decode(0)
                        )
                    }
                    init(_strataDecodedRow: Void, _ v0: Int64?) {
                        self.id = v0
                    }
                    var databaseValues: [Strata.DatabaseValue] { _databaseValuesAppended() }
                    func appendDatabaseValues(to values: inout [Strata.DatabaseValue]) {
                        values.append(self.id.databaseValue)
                    }
                }
                """#,
            macroSpecs: testMacros
        )
    }

    func testRolesBecomeColumnArguments() {
        assertMacroExpansion(
            #"""
            @Model
            struct Doc {
                var id: Int64?
                @CreatedAt var createdAt = Date()
                @UpdatedAt var updatedAt: Date?
                @Version var version = 0
            }
            """#,
            expandedSource: #"""
                struct Doc {
                    @Strata._ChangeTracked(0)
                    var id: Int64?
                    @Strata._ChangeTracked(1) var createdAt = Date()
                    @Strata._ChangeTracked(2) var updatedAt: Date?
                    @Strata._ChangeTracked(3) var version = 0

                    @Strata.PersistenceStorage var _persistence: Strata.PersistenceState? = nil
                }

                extension Doc: Strata.Model {
                    static let schema = Strata.TableSchema(name: "doc", columns: [
                        Strata.TableColumn(\Doc.id, "id", primaryKey: true),
                        Strata.TableColumn(\Doc.createdAt, "created_at", default: Date(), constant: false, role: .createdAt),
                        Strata.TableColumn(\Doc.updatedAt, "updated_at", role: .updatedAt),
                        Strata.TableColumn(\Doc.version, "version", default: 0, constant: true, role: .version),
                    ])
                    init(row: Strata.Row) throws(Strata.StrataError) {
                        self.id = try row.decode(0)
                        self.createdAt = try row.decode(1, default: Date())
                        self.updatedAt = try row.decode(2)
                        self.version = try row.decode(3, default: 0)
                    }
                    var databaseValues: [Strata.DatabaseValue] { _databaseValuesAppended() }
                    func appendDatabaseValues(to values: inout [Strata.DatabaseValue]) {
                        values.append(self.id.databaseValue)
                        values.append(self.createdAt.databaseValue)
                        values.append(self.updatedAt.databaseValue)
                        values.append(self.version.databaseValue)
                    }
                }
                """#,
            macroSpecs: testMacros
        )
    }

    func testRoleOnWrongTypeIsDiagnosed() {
        assertMacroExpansion(
            #"""
            @Model
            struct Doc {
                var id: Int64?
                @CreatedAt var createdAt: String = ""
            }
            """#,
            expandedSource: #"""
                struct Doc {
                    var id: Int64?
                    var createdAt: String = ""
                }
                """#,
            diagnostics: [
                DiagnosticSpec(message: "@CreatedAt needs a 'var' of type Date or Date?", line: 4, column: 20)
            ],
            macroSpecs: testMacros
        )
    }
}
