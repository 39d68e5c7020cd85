// PostgresModels: the small models the PostgreSQL driver tests use.
import Foundation
import Strata

@Model(table: "pgt_item")
struct PGItem {
    var id: Int64?
    var name: String
    var rank: Int?
    var note: String?

    static var indexes: [Index] { [.on(\PGItem.name, unique: true)] }
}

@Model(table: "pgt_typed")
struct PGTyped {
    var id: Int64?
    var small: Int16?
    var four: Int32
    var real: Float
    var big: Double
    var label: String?
}

@Model(table: "pgt_pair")
struct PGPair {
    var id: Int64?
    var left: String
    var right: String

    static var indexes: [Index] { [.on(\PGPair.left, \PGPair.right, unique: true)] }
}

@Model(table: "pgt_parent")
struct PGParent {
    var id: Int64?
    var title: String
}

@Model(table: "pgt_child")
struct PGChild {
    var id: Int64?
    var parentID: Int64?

    static var foreignKeys: [ForeignKey] { [.from(\PGChild.parentID, to: PGParent.self)] }
}

/// Long enough names that the default unique index name passes PostgreSQL's 63-byte limit.
@Model(table: "pgt_a_table_with_a_rather_long_name_for_testing")
struct PGLongNames {
    var id: Int64?
    var aColumnWhoseNameIsAlsoQuiteLong: String
    var anotherColumnWithAVeryLongName: String

    static var indexes: [Index] {
        [.on(\PGLongNames.aColumnWhoseNameIsAlsoQuiteLong, \PGLongNames.anotherColumnWithAVeryLongName, unique: true)]
    }
}
