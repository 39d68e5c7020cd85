// ModelMacro tests: the members and Strata.Model extension @Model generates for valid structs.
import StrataMacros
import SwiftSyntaxMacrosTestSupport
import XCTest

final class ModelMacroExpansionTests: XCTestCase {
    func testFullExample() {
        assertMacroExpansion(
            #"""
            @Model
            struct User {
                var id: Int64?
                var name: String
                @Column("mail") var email: String
                var active = true
                var joinedAt = Date()
                var tags: [String] = []
                var groupID: Int64?
                @Transient var draft = ""
                static let group = 5
                var shout: String { name.uppercased() }
            }
            """#,
            expandedSource: #"""
                struct User {
                    @Strata._ChangeTracked(0)
                    var id: Int64?
                    @Strata._ChangeTracked(1)
                    var name: String
                    @Strata._ChangeTracked(2) var email: String
                    @Strata._ChangeTracked(3)
                    var active = true
                    @Strata._ChangeTracked(4)
                    var joinedAt = Date()
                    @Strata._ChangeTracked(5)
                    var tags: [String] = []
                    @Strata._ChangeTracked(6)
                    var groupID: Int64?
                    var draft = ""
                    static let group = 5
                    var shout: String { name.uppercased() }

                    @Strata.PersistenceStorage var _persistence: Strata.PersistenceState? = nil
                }

                extension User: Strata.Model {
                    static let schema = Strata.TableSchema(name: "user", columns: [
                        Strata.TableColumn(\User.id, "id", primaryKey: true),
                        Strata.TableColumn(\User.name, "name"),
                        Strata.TableColumn(\User.email, "mail"),
                        Strata.TableColumn(\User.active, "active", default: true, constant: true),
                        Strata.TableColumn(\User.joinedAt, "joined_at", default: Date(), constant: false),
                        Strata.TableColumn(\User.tags, "tags", default: [], constant: true),
                        Strata.TableColumn(\User.groupID, "group_id"),
                    ])
                    init(row: Strata.Row) throws(Strata.StrataError) {
                        self.id = try row.decode(0)
                        self.name = try row.decode(1)
                        self.email = try row.decode(2)
                        self.active = try row.decode(3, default: true)
                        self.joinedAt = try row.decode(4, default: Date())
                        self.tags = try row.decode(5, default: [])
                        self.groupID = try row.decode(6)
                    }
                    var databaseValues: [Strata.DatabaseValue] { _databaseValuesAppended() }
                    func appendDatabaseValues(to values: inout [Strata.DatabaseValue]) {
                        values.append(self.id.databaseValue)
                        values.append(self.name.databaseValue)
                        values.append(self.email.databaseValue)
                        values.append(self.active.databaseValue)
                        values.append(self.joinedAt.databaseValue)
                        values.append(self.tags.databaseValue)
                        values.append(self.groupID.databaseValue)
                    }
                }
                """#,
            macroSpecs: testMacros
        )
    }

    func testColumnDateFormat() {
        assertMacroExpansion(
            #"""
            @Model
            struct Invoice {
                var id: Int64?
                @Column("InvoiceDate", dateFormat: .sqlDateTime) var issued: Date
                @Column(dateFormat: .unixMilliseconds) var paidAt: Date? = nil
            }
            """#,
            expandedSource: #"""
                struct Invoice {
                    @Strata._ChangeTracked(0)
                    var id: Int64?
                    @Strata._ChangeTracked(1) var issued: Date
                    @Strata._ChangeTracked(2) var paidAt: Date? = nil

                    @Strata.PersistenceStorage var _persistence: Strata.PersistenceState? = nil
                }

                extension Invoice: Strata.Model {
                    static let schema = Strata.TableSchema(name: "invoice", columns: [
                        Strata.TableColumn(\Invoice.id, "id", primaryKey: true),
                        Strata.TableColumn(\Invoice.issued, "InvoiceDate").storing(dates: .sqlDateTime),
                        Strata.TableColumn(\Invoice.paidAt, "paid_at", default: nil, constant: true).storing(dates: .unixMilliseconds),
                    ])
                    init(row: Strata.Row) throws(Strata.StrataError) {
                        try self.init(
                            _strataDecodedRow: (),
                            row.decode(0),
                            row.decode(1, dateFormat: .sqlDateTime),
                            row.decode(2, dateFormat: .unixMilliseconds, default: nil)
                        )
                    }
                    init(_strataDecodedRow: Void, _ v0: Int64?, _ v1: Date, _ v2: Date?) {
                        self.id = v0
                        self.issued = v1
                        self.paidAt = v2
                    }
                    var databaseValues: [Strata.DatabaseValue] { _databaseValuesAppended() }
                    func appendDatabaseValues(to values: inout [Strata.DatabaseValue]) {
                        values.append(self.id.databaseValue)
                        values.append((.sqlDateTime as Strata.DateFormat).stored(self.issued.databaseValue))
                        values.append((.unixMilliseconds as Strata.DateFormat).stored(self.paidAt.databaseValue))
                    }
                }
                """#,
            macroSpecs: testMacros
        )
    }

    func testEncryptedColumns() {
        assertMacroExpansion(
            #"""
            @Model
            struct Patient {
                var id: Int64?
                @Encrypted(.deterministic) var ssn: String
                @Encrypted var note: String? = nil
            }
            """#,
            expandedSource: #"""
                struct Patient {
                    @Strata._ChangeTracked(0)
                    var id: Int64?
                    @Strata._ChangeTracked(1) var ssn: String
                    @Strata._ChangeTracked(2) var note: String? = nil

                    @Strata.PersistenceStorage var _persistence: Strata.PersistenceState? = nil
                }

                extension Patient: Strata.Model {
                    static let schema = Strata.TableSchema(name: "patient", columns: [
                        Strata.TableColumn(\Patient.id, "id", primaryKey: true),
                        Strata.TableColumn(\Patient.ssn, "ssn").encrypted(.deterministic),
                        Strata.TableColumn(\Patient.note, "note", default: nil, constant: true).encrypted(.randomized),
                    ])
                    init(row: Strata.Row) throws(Strata.StrataError) {
                        try self.init(
                            _strataDecodedRow: (),
                            row.decode(0),
                            row.decode(1, encrypted: .deterministic),
                            row.decode(2, encrypted: .randomized, default: nil)
                        )
                    }
                    init(_strataDecodedRow: Void, _ v0: Int64?, _ v1: String, _ v2: String?) {
                        self.id = v0
                        self.ssn = v1
                        self.note = v2
                    }
                    var databaseValues: [Strata.DatabaseValue] { _databaseValuesAppended() }
                    func appendDatabaseValues(to values: inout [Strata.DatabaseValue]) {
                        values.append(self.id.databaseValue)
                        values.append(self.ssn.databaseValue)
                        values.append(self.note.databaseValue)
                    }
                }
                """#,
            macroSpecs: testMacros
        )
    }

    func testGeneratedColumn() {
        assertMacroExpansion(
            #"""
            @Model
            struct Line {
                var id: Int64?
                var price: Int64
                @Generated var total: Int64 = 0
            }
            """#,
            expandedSource: #"""
                struct Line {
                    @Strata._ChangeTracked(0)
                    var id: Int64?
                    @Strata._ChangeTracked(1)
                    var price: Int64
                    @Strata._ChangeTracked(2) var total: Int64 = 0

                    @Strata.PersistenceStorage var _persistence: Strata.PersistenceState? = nil
                }

                extension Line: Strata.Model {
                    static let schema = Strata.TableSchema(name: "line", columns: [
                        Strata.TableColumn(\Line.id, "id", primaryKey: true),
                        Strata.TableColumn(\Line.price, "price"),
                        Strata.TableColumn(\Line.total, "total", default: 0, constant: true).generated().readBack { (model: inout Line, row: Strata.Row, column: Int) throws(Strata.StrataError) in model.total = try row.decode(column) },
                    ])
                    init(row: Strata.Row) throws(Strata.StrataError) {
                        try self.init(
                            _strataDecodedRow: (),
                            row.decode(0),
                            row.decode(1),
                            row.decode(2, default: 0)
                        )
                    }
                    init(_strataDecodedRow: Void, _ v0: Int64?, _ v1: Int64, _ v2: Int64) {
                        self.id = v0
                        self.price = v1
                        self.total = v2
                    }
                    var databaseValues: [Strata.DatabaseValue] { _databaseValuesAppended() }
                    func appendDatabaseValues(to values: inout [Strata.DatabaseValue]) {
                        values.append(self.id.databaseValue)
                        values.append(self.price.databaseValue)
                        values.append(self.total.databaseValue)
                    }
                }
                """#,
            macroSpecs: testMacros
        )
    }

    func testCustomTableNameAndLetWithoutInitializer() {
        assertMacroExpansion(
            #"""
            @Model(table: "people")
            struct Person {
                var id: Int64? = nil
                let createdAt: Date
            }
            """#,
            expandedSource: #"""
                struct Person {
                    @Strata._ChangeTracked(0)
                    var id: Int64? = nil
                    let createdAt: Date

                    @Strata.PersistenceStorage var _persistence: Strata.PersistenceState? = nil
                }

                extension Person: Strata.Model {
                    static let schema = Strata.TableSchema(name: "people", columns: [
                        Strata.TableColumn(\Person.id, "id", primaryKey: true),
                        Strata.TableColumn(\Person.createdAt, "created_at"),
                    ])
                    init(row: Strata.Row) throws(Strata.StrataError) {
                        try self.init(
                            _strataDecodedRow: (),
                            row.decode(0),
                            row.decode(1)
                        )
                    }
                    init(_strataDecodedRow: Void, _ v0: Int64?, _ v1: Date) {
                        self.id = v0
                        self.createdAt = v1
                    }
                    var databaseValues: [Strata.DatabaseValue] { _databaseValuesAppended() }
                    func appendDatabaseValues(to values: inout [Strata.DatabaseValue]) {
                        values.append(self.id.databaseValue)
                        values.append(self.createdAt.databaseValue)
                    }
                }
                """#,
            macroSpecs: testMacros
        )
    }

    func testPublicStructGetsPublicMembersAndSnakeCaseTable() {
        assertMacroExpansion(
            #"""
            @Model
            public struct HTTPLog {
                public var id: Optional<Int64>
                public var statusCode: Int
            }
            """#,
            expandedSource: #"""
                public struct HTTPLog {
                    @Strata._ChangeTracked(0)
                    public var id: Optional<Int64>
                    @Strata._ChangeTracked(1)
                    public var statusCode: Int

                    @Strata.PersistenceStorage public var _persistence: Strata.PersistenceState? = nil
                }

                extension HTTPLog: Strata.Model {
                    public static let schema = Strata.TableSchema(name: "http_log", columns: [
                        Strata.TableColumn(\HTTPLog.id, "id", primaryKey: true),
                        Strata.TableColumn(\HTTPLog.statusCode, "status_code"),
                    ])
                    public init(row: Strata.Row) throws(Strata.StrataError) {
                        try self.init(
                            _strataDecodedRow: (),
                            row.decode(0),
                            row.decode(1)
                        )
                    }
                    init(_strataDecodedRow: Void, _ v0: Optional<Int64>, _ v1: Int) {
                        self.id = v0
                        self.statusCode = v1
                    }
                    public var databaseValues: [Strata.DatabaseValue] { _databaseValuesAppended() }
                    public func appendDatabaseValues(to values: inout [Strata.DatabaseValue]) {
                        values.append(self.id.databaseValue)
                        values.append(self.statusCode.databaseValue)
                    }
                }
                """#,
            macroSpecs: testMacros
        )
    }

    func testPackageStructAlreadyConformingGetsNoConformanceClause() {
        // With `macros:` no conformance is requested, as when the struct already declares `: Model`.
        assertMacroExpansion(
            #"""
            @Model
            package struct Tag: Model {
                package var id: Swift.Int64?
            }
            """#,
            expandedSource: #"""
                package struct Tag: Model {
                    @Strata._ChangeTracked(0)
                    package var id: Swift.Int64?

                    @Strata.PersistenceStorage package var _persistence: Strata.PersistenceState? = nil
                }

                extension Tag {
                    package static let schema = Strata.TableSchema(name: "tag", columns: [
                        Strata.TableColumn(\Tag.id, "id", primaryKey: true),
                    ])
                    package init(row: Strata.Row) throws(Strata.StrataError) {
                        try self.init(
                            _strataDecodedRow: (),
                            row.decode(0)
                        )
                    }
                    init(_strataDecodedRow: Void, _ v0: Swift.Int64?) {
                        self.id = v0
                    }
                    package var databaseValues: [Strata.DatabaseValue] { _databaseValuesAppended() }
                    package func appendDatabaseValues(to values: inout [Strata.DatabaseValue]) {
                        values.append(self.id.databaseValue)
                    }
                }
                """#,
            macros: ["Model": ModelMacro.self, "Column": MarkerMacro.self, "Transient": MarkerMacro.self]
        )
    }

    func testBindingListsObserversAndSkippedMembers() {
        assertMacroExpansion(
            #"""
            @Model
            struct Point {
                var id: Int64?
                var x, y: Double
                var label: String = "origin" {
                    didSet { print(label) }
                }
                lazy var cache = [Int]()
                var length: Double {
                    get { x + y }
                    set { x = newValue }
                }
                @Transient var callback: (@Sendable () -> Void)?
                func move() {}
            }
            """#,
            expandedSource: #"""
                struct Point {
                    @Strata._ChangeTracked(0)
                    var id: Int64?
                    var x, y: Double
                    var label: String = "origin" {
                        didSet { print(label) }
                    }
                    lazy var cache = [Int]()
                    var length: Double {
                        get { x + y }
                        set { x = newValue }
                    }
                    var callback: (@Sendable () -> Void)?
                    func move() {}

                    @Strata.PersistenceStorage var _persistence: Strata.PersistenceState? = nil
                }

                extension Point: Strata.Model {
                    static let schema = Strata.TableSchema(name: "point", columns: [
                        Strata.TableColumn(\Point.id, "id", primaryKey: true),
                        Strata.TableColumn(\Point.x, "x", tracked: false),
                        Strata.TableColumn(\Point.y, "y", tracked: false),
                        Strata.TableColumn(\Point.label, "label", default: "origin", constant: true, tracked: false),
                    ])
                    init(row: Strata.Row) throws(Strata.StrataError) {
                        try self.init(
                            _strataDecodedRow: (),
                            row.decode(0),
                            row.decode(1),
                            row.decode(2),
                            row.decode(3, default: "origin")
                        )
                    }
                    init(_strataDecodedRow: Void, _ v0: Int64?, _ v1: Double, _ v2: Double, _ v3: String) {
                        self.id = v0
                        self.x = v1
                        self.y = v2
                        self.label = v3
                    }
                    var databaseValues: [Strata.DatabaseValue] { _databaseValuesAppended() }
                    func appendDatabaseValues(to values: inout [Strata.DatabaseValue]) {
                        values.append(self.id.databaseValue)
                        values.append(self.x.databaseValue)
                        values.append(self.y.databaseValue)
                        values.append(self.label.databaseValue)
                    }
                }
                """#,
            macroSpecs: testMacros
        )
    }

    func testDefaultsAreConstantOnlyForLiterals() {
        assertMacroExpansion(
            #"""
            @Model
            struct Settings {
                var id: Int64?
                var level = -1
                var ratio = 0.5
                var note: String? = nil
                var limits = ["a": 1, "b": -2]
                var empty: [String: Int] = [:]
                var greeting = "hi \(1)"
                var kind: Kind = .basic
                var sizes = [1, count]
            }
            """#,
            expandedSource: #"""
                struct Settings {
                    @Strata._ChangeTracked(0)
                    var id: Int64?
                    @Strata._ChangeTracked(1)
                    var level = -1
                    @Strata._ChangeTracked(2)
                    var ratio = 0.5
                    @Strata._ChangeTracked(3)
                    var note: String? = nil
                    @Strata._ChangeTracked(4)
                    var limits = ["a": 1, "b": -2]
                    @Strata._ChangeTracked(5)
                    var empty: [String: Int] = [:]
                    @Strata._ChangeTracked(6)
                    var greeting = "hi \(1)"
                    @Strata._ChangeTracked(7)
                    var kind: Kind = .basic
                    @Strata._ChangeTracked(8)
                    var sizes = [1, count]

                    @Strata.PersistenceStorage var _persistence: Strata.PersistenceState? = nil
                }

                extension Settings: Strata.Model {
                    static let schema = Strata.TableSchema(name: "settings", columns: [
                        Strata.TableColumn(\Settings.id, "id", primaryKey: true),
                        Strata.TableColumn(\Settings.level, "level", default: -1, constant: true),
                        Strata.TableColumn(\Settings.ratio, "ratio", default: 0.5, constant: true),
                        Strata.TableColumn(\Settings.note, "note", default: nil, constant: true),
                        Strata.TableColumn(\Settings.limits, "limits", default: ["a": 1, "b": -2], constant: true),
                        Strata.TableColumn(\Settings.empty, "empty", default: [:], constant: true),
                        Strata.TableColumn(\Settings.greeting, "greeting", default: "hi \(1)", constant: false),
                        Strata.TableColumn(\Settings.kind, "kind", default: .basic, constant: false),
                        Strata.TableColumn(\Settings.sizes, "sizes", default: [1, count], constant: false),
                    ])
                    init(row: Strata.Row) throws(Strata.StrataError) {
                        self.id = try row.decode(0)
                        self.level = try row.decode(1, default: -1)
                        self.ratio = try row.decode(2, default: 0.5)
                        self.note = try row.decode(3, default: nil)
                        self.limits = try row.decode(4, default: ["a": 1, "b": -2])
                        self.empty = try row.decode(5, default: [:])
                        self.greeting = try row.decode(6, default: "hi \(1)")
                        self.kind = try row.decode(7, default: .basic)
                        self.sizes = try row.decode(8, default: [1, count])
                    }
                    var databaseValues: [Strata.DatabaseValue] { _databaseValuesAppended() }
                    func appendDatabaseValues(to values: inout [Strata.DatabaseValue]) {
                        values.append(self.id.databaseValue)
                        values.append(self.level.databaseValue)
                        values.append(self.ratio.databaseValue)
                        values.append(self.note.databaseValue)
                        values.append(self.limits.databaseValue)
                        values.append(self.empty.databaseValue)
                        values.append(self.greeting.databaseValue)
                        values.append(self.kind.databaseValue)
                        values.append(self.sizes.databaseValue)
                    }
                }
                """#,
            macroSpecs: testMacros
        )
    }

    func testQualifiedAttributesAndEscapedNames() {
        // The test harness only expands unqualified attributes, so the qualified markers stay in place.
        assertMacroExpansion(
            #"""
            @Model
            struct Entry {
                var id: Int64?
                @Strata.Column("body_text") var body: String
                var `default`: Bool
                @Strata.Transient var scratch = 0
            }
            """#,
            expandedSource: #"""
                struct Entry {
                    @Strata._ChangeTracked(0)
                    var id: Int64?
                    @Strata.Column("body_text")
                    @Strata._ChangeTracked(1) var body: String
                    @Strata._ChangeTracked(2)
                    var `default`: Bool
                    @Strata.Transient var scratch = 0

                    @Strata.PersistenceStorage var _persistence: Strata.PersistenceState? = nil
                }

                extension Entry: Strata.Model {
                    static let schema = Strata.TableSchema(name: "entry", columns: [
                        Strata.TableColumn(\Entry.id, "id", primaryKey: true),
                        Strata.TableColumn(\Entry.body, "body_text"),
                        Strata.TableColumn(\Entry.`default`, "default"),
                    ])
                    init(row: Strata.Row) throws(Strata.StrataError) {
                        try self.init(
                            _strataDecodedRow: (),
                            row.decode(0),
                            row.decode(1),
                            row.decode(2)
                        )
                    }
                    init(_strataDecodedRow: Void, _ v0: Int64?, _ v1: String, _ v2: Bool) {
                        self.id = v0
                        self.body = v1
                        self.`default` = v2
                    }
                    var databaseValues: [Strata.DatabaseValue] { _databaseValuesAppended() }
                    func appendDatabaseValues(to values: inout [Strata.DatabaseValue]) {
                        values.append(self.id.databaseValue)
                        values.append(self.body.databaseValue)
                        values.append(self.`default`.databaseValue)
                    }
                }
                """#,
            macroSpecs: testMacros
        )
    }

    func testChangeTrackedAddsDidSet() {
        assertMacroExpansion(
            """
            @_ChangeTracked(3) var name: String
            """,
            expandedSource: """
                var name: String {
                    didSet { _persistence?.markChanged(3) }
                }
                """,
            macroSpecs: testMacros
        )
    }
}

final class ModelMacroAssociationTests: XCTestCase {
    func testAssociationDeclarationsAreListed() {
        assertMacroExpansion(
            """
            @Model
            struct Group {
                var id: Int64?
                static let users = hasMany(User.self, onDelete: .destroy)
                static let owner = Self.belongsTo(User.self, key: \\.ownerID)
                static let other = 5
            }
            """,
            expandedSource: """
                struct Group {
                    @Strata._ChangeTracked(0)
                    var id: Int64?
                    static let users = hasMany(User.self, onDelete: .destroy)
                    static let owner = Self.belongsTo(User.self, key: \\.ownerID)
                    static let other = 5

                    @Strata.PersistenceStorage var _persistence: Strata.PersistenceState? = nil
                }

                extension Group: Strata.Model {
                    static let schema = Strata.TableSchema(name: "group", columns: [
                        Strata.TableColumn(\\Group.id, "id", primaryKey: true),
                    ])
                    static var associations: [any Strata.ModelAssociation<Group>] { [Group.users, Group.owner] }
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
                """,
            macroSpecs: testMacros
        )
    }
}
