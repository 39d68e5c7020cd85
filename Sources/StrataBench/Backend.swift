// Backend: the storage backends the benchmark measures and what each is compared against.

/// A backend under test.
public enum Backend: String, CaseIterable, Sendable, Codable {
    /// SQLite on a file in WAL mode, against libsqlite3 on the same file.
    case sqlite
    /// The memory driver, against Strata on SQLite's in-memory database (there is no C API to compare with).
    case memory
    /// PostgreSQL on a server, against libpq on the same server.
    case postgres

    /// What the baseline column holds for this backend.
    public var baselineName: String {
        switch self {
        case .sqlite: return "raw libsqlite3"
        case .memory: return "Strata on sqlite::memory:"
        case .postgres: return "raw libpq"
        }
    }
}
