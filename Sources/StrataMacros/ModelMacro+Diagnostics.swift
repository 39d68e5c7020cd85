// ModelMacro: the error messages @Model reports for declarations it cannot persist.
import SwiftDiagnostics

enum ModelDiagnostic: DiagnosticMessage {
    case notAStruct
    case genericStruct
    case missingID
    case invalidID
    case letWithInitialValue
    case transientWithoutValue
    case unstorableType(property: String, type: String)
    case duplicateColumn(column: String, first: String, second: String)
    case invalidColumnName
    case invalidTableName
    case destructuringPattern
    case invalidRoleType(attribute: String, expected: String)
    case invalidCompositeKey(String)

    var message: String {
        switch self {
        case .notAStruct:
            "@Model can only be applied to a struct"
        case .genericStruct:
            "@Model does not support generic structs"
        case .missingID:
            "@Model requires a primary key property 'var id: Int64?'"
        case .invalidID:
            "'id' must be declared as 'var id: Int64?' (or UUID?, String?)"
        case .letWithInitialValue:
            "a 'let' property with an initial value cannot be stored; make it 'var' or mark it @Transient"
        case .transientWithoutValue:
            "a @Transient property needs an initial value"
        case .unstorableType(let property, let type):
            "'\(property)' has type '\(type)', which cannot be stored in a column; "
                + "mark it @Transient or use a DatabaseValueConvertible type"
        case .duplicateColumn(let column, let first, let second):
            "column '\(column)' is used by both '\(first)' and '\(second)'"
        case .invalidColumnName:
            "@Column needs a non-empty string literal"
        case .invalidTableName:
            "@Model(table:) needs a non-empty string literal"
        case .destructuringPattern:
            "@Model cannot store properties declared with a tuple pattern; declare each property separately"
        case .invalidRoleType(let attribute, let expected):
            "@\(attribute) needs a 'var' of type \(expected)"
                + (expected == "Date" ? " or Date?" : expected == "Int" ? " or Int64" : "")
        case .invalidCompositeKey(let reason):
            "@Model(primaryKey:) \(reason)"
        }
    }

    var diagnosticID: MessageID {
        let id: String
        switch self {
        case .notAStruct: id = "notAStruct"
        case .genericStruct: id = "genericStruct"
        case .missingID: id = "missingID"
        case .invalidID: id = "invalidID"
        case .letWithInitialValue: id = "letWithInitialValue"
        case .transientWithoutValue: id = "transientWithoutValue"
        case .unstorableType: id = "unstorableType"
        case .duplicateColumn: id = "duplicateColumn"
        case .invalidColumnName: id = "invalidColumnName"
        case .invalidTableName: id = "invalidTableName"
        case .destructuringPattern: id = "destructuringPattern"
        case .invalidRoleType: id = "invalidRoleType"
        case .invalidCompositeKey: id = "invalidCompositeKey"
        }
        return MessageID(domain: "StrataMacros", id: id)
    }

    var severity: DiagnosticSeverity { .error }
}
