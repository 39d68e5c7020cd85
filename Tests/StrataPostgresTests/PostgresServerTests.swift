// PostgresServerTests: the parent suite of every test that needs a server, run one test at a time.
import Testing

/// Every test that needs the server, run one at a time: the restart test stops the server, which
/// would break anything running beside it. Skipped with a loud message when no server answers
/// (unless `CI=true`, where the tests run and fail).
@Suite("PostgreSQL server", .serialized, .enabled(if: PostgresTestServer.enabled))
struct PostgresServerTests {}
