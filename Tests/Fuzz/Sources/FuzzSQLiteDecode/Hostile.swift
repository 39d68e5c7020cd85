// Hostile: a model with a property of every supported type, read back from values it did not write.
import Foundation
import Strata

enum Mood: String, Codable, DatabaseValueConvertible { case calm, angry }

struct Point: Codable, Hashable, DatabaseValueConvertible {
    var x: Int
    var y: Int
}

@Model(table: "hostile")
struct Hostile {
    var id: Int64?
    var flag = false
    var int = 0
    var int8: Int8 = 0
    var int16: Int16 = 0
    var int32: Int32 = 0
    var int64: Int64 = 0
    var uint8: UInt8 = 0
    var uint16: UInt16 = 0
    var uint32: UInt32 = 0
    var double = 0.0
    var float: Float = 0
    var text = ""
    var data = Data()
    var date = Date(timeIntervalSince1970: 0)
    var decimal: Decimal = 0
    var uuid = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
    var url = URL(fileURLWithPath: "/")
    var mood = Mood.calm
    var point = Point(x: 0, y: 0)
    var tags: [String] = []
    var maybeInt: Int64?
    var maybeText: String?
    var maybeDate: Date?
}

/// A stored value bound as it is: the fuzz target writes what the model never would.
struct Stored: DatabaseValueConvertible {
    static var columnType: ColumnType { .blob }
    var databaseValue: DatabaseValue
    init(databaseValue: DatabaseValue) { self.databaseValue = databaseValue }
}
