// ModelMacro tests: a lifecycle callback in the struct's body turns hasLifecycleCallbacks on; none, or the
// struct's own declaration, leaves it alone.
import StrataMacros
import SwiftSyntaxMacrosTestSupport
import XCTest

final class ModelMacroCallbackTests: XCTestCase {
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

                    var _persistence: Strata.PersistenceState? = nil
                }

                extension Post: Strata.Model {
                    static let schema = Strata.TableSchema(name: "post", columns: [
                        Strata.TableColumn(\Post.id, "id", primaryKey: true),
                    ])
                    static func columnName(for keyPath: PartialKeyPath<Post>) -> String? {
                        switch keyPath {
                        case \Post.id: return "id"
                        default: return nil
                        }
                    }
                    static func keyPath(forColumn column: String) -> PartialKeyPath<Post>? {
                        switch column {
                        case "id": return \Post.id
                        default: return nil
                        }
                    }
                    static var hasLifecycleCallbacks: Bool { true }
                    init(row: Strata.Row) throws {
                        self.id = try row.decode(0)
                    }
                    var databaseValues: [Strata.DatabaseValue] {
                        [
                            self.id.databaseValue,
                        ]
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

                    var _persistence: Strata.PersistenceState? = nil
                }

                extension Post: Strata.Model {
                    static let schema = Strata.TableSchema(name: "post", columns: [
                        Strata.TableColumn(\Post.id, "id", primaryKey: true),
                    ])
                    static func columnName(for keyPath: PartialKeyPath<Post>) -> String? {
                        switch keyPath {
                        case \Post.id: return "id"
                        default: return nil
                        }
                    }
                    static func keyPath(forColumn column: String) -> PartialKeyPath<Post>? {
                        switch column {
                        case "id": return \Post.id
                        default: return nil
                        }
                    }
                    init(row: Strata.Row) throws {
                        self.id = try row.decode(0)
                    }
                    var databaseValues: [Strata.DatabaseValue] {
                        [
                            self.id.databaseValue,
                        ]
                    }
                }
                """#,
            macroSpecs: testMacros
        )
    }
}
