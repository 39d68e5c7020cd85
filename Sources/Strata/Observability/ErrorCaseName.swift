// ErrorCaseName: the name of a StrataError's case, for metrics dimensions and log metadata.

extension StrataError {
    /// The case's name (`uniqueViolation`, `busy`, …), without its values: a stable label for metrics.
    public var caseName: String {
        switch self {
        case .invalidURL: return "invalidURL"
        case .unknownScheme: return "unknownScheme"
        case .driverNotRegistered: return "driverNotRegistered"
        case .validationFailed: return "validationFailed"
        case .unknownColumn: return "unknownColumn"
        case .notPersisted: return "notPersisted"
        case .recordNotFound: return "recordNotFound"
        case .staleRecord: return "staleRecord"
        case .invalidQuery: return "invalidQuery"
        case .invalidAssociation: return "invalidAssociation"
        case .associationNotLoaded: return "associationNotLoaded"
        case .deleteRestricted: return "deleteRestricted"
        case .invalidIdentifier: return "invalidIdentifier"
        case .tooManyBindings: return "tooManyBindings"
        case .uniqueViolation: return "uniqueViolation"
        case .notNullViolation: return "notNullViolation"
        case .foreignKeyViolation: return "foreignKeyViolation"
        case .checkViolation: return "checkViolation"
        case .typeMismatch: return "typeMismatch"
        case .decodingFailed: return "decodingFailed"
        case .columnNotSelected: return "columnNotSelected"
        case .schemaMismatch: return "schemaMismatch"
        case .missingReferencedTable: return "missingReferencedTable"
        case .noSuchTable: return "noSuchTable"
        case .busy: return "busy"
        case .serializationFailure: return "serializationFailure"
        case .connectionFailed: return "connectionFailed"
        case .authenticationFailed: return "authenticationFailed"
        case .connectionLost: return "connectionLost"
        case .unsupported: return "unsupported"
        case .transactionMisuse: return "transactionMisuse"
        case .database: return "database"
        case .invalidValue: return "invalidValue"
        case .poolTimeout: return "poolTimeout"
        case .divergence: return "divergence"
        case .arithmeticError: return "arithmeticError"
        case .invalidAggregate: return "invalidAggregate"
        case .schemaMismatches: return "schemaMismatches"
        case .migrationChecksumMismatch: return "migrationChecksumMismatch"
        case .irreversibleMigration: return "irreversibleMigration"
        }
    }
}
