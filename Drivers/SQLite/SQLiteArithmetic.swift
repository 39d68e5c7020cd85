// SQLiteArithmetic: checked `strata_add` … `strata_mod` functions, so SQLite raises Strata's arithmetic errors.
import CSQLite
import Strata

/// The functions the SQLite dialect renders arithmetic as (``ArithmeticSyntax/checkedFunctions``).
///
/// SQLite's own operators return NULL for `x / 0` and `x % 0` and turn an integer overflow into a REAL; these
/// compute with ``CheckedArithmetic`` (the memory driver's code, PostgreSQL's rules) and fail the statement
/// with a message ``SQLiteErrors`` maps to ``StrataError/arithmeticError(expression:reason:)``. NULL in, NULL
/// out; two integers give an integer, an integer and a REAL a REAL; text or blob operands fail as a type
/// mismatch (PostgreSQL has no `text + bigint`).
enum SQLiteArithmetic {
    /// The prefix of the error message these functions raise.
    static let errorPrefix = "strata arithmetic error: "
    /// The message for an operand that is not a number.
    static let typeErrorPrefix = "strata arithmetic type error: "

    /// Registers the five functions on `db`.
    static func register(on db: OpaquePointer) {
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS
        for (i, op) in ArithmeticOperator.allCases.enumerated() {
            // The operator travels as its index + 1 in the user-data pointer: no allocation to release.
            sqlite3_create_function_v2(
                db, op.checkedFunctionName, 2, flags, UnsafeMutableRawPointer(bitPattern: i + 1), function, nil, nil,
                nil)
        }
    }

    /// `ArithmeticOperator.allCases`, made once: the synthesized property makes a new array at each read, and each
    /// call of a function read it twice (about 150 instructions a call).
    private static let operators = ArithmeticOperator.allCases

    private static let function: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void =
        { ctx, argc, argv in
            guard let ctx, let argv, argc == 2, let a = argv[0], let b = argv[1] else { return }
            let index = Int(bitPattern: sqlite3_user_data(ctx)) - 1
            guard operators.indices.contains(index) else { return }
            let op = operators[index]
            let ta = sqlite3_value_type(a)
            let tb = sqlite3_value_type(b)
            if ta == SQLITE_NULL || tb == SQLITE_NULL { return sqlite3_result_null(ctx) }
            if ta == SQLITE_INTEGER && tb == SQLITE_INTEGER {
                switch CheckedArithmetic.integer(op, sqlite3_value_int64(a), sqlite3_value_int64(b)) {
                case .success(let r): sqlite3_result_int64(ctx, r)
                case .failure(let f): sqlite3_result_error(ctx, errorPrefix + f.reason, -1)
                }
                return
            }
            guard ta == SQLITE_INTEGER || ta == SQLITE_FLOAT, tb == SQLITE_INTEGER || tb == SQLITE_FLOAT else {
                return sqlite3_result_error(ctx, typeErrorPrefix + "\(op.rawValue) needs numbers", -1)
            }
            switch CheckedArithmetic.double(op, sqlite3_value_double(a), sqlite3_value_double(b)) {
            case .success(let r): sqlite3_result_double(ctx, r)
            case .failure(let f) where f == CheckedArithmetic.remainderOfDouble:
                sqlite3_result_error(ctx, typeErrorPrefix + f.reason, -1)
            case .failure(let f): sqlite3_result_error(ctx, errorPrefix + f.reason, -1)
            }
        }

    /// The typed error for a message one of these functions raised, or nil.
    static func error(_ message: String, table: String?) -> StrataError? {
        if let r = message.range(of: errorPrefix) {
            return .arithmeticError(
                expression: "an arithmetic expression on \(table ?? "?")", reason: String(message[r.upperBound...]))
        }
        if let r = message.range(of: typeErrorPrefix) {
            return .typeMismatch(table: table, column: nil, detail: String(message[r.upperBound...]))
        }
        return nil
    }
}
