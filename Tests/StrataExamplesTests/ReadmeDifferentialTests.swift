// ReadmeDifferentialTests: the Proving parity article's example, compiled and run.
import Strata
import StrataMemory
import StrataSQLite
import Testing

// README: "Proving parity"
@Model
struct Todo {
    var id: Int64?
    var title: String
    var done = false
}

@Test("README: app logic tested on memory is checked against SQLite, statement by statement")
func appLogicHoldsOnSQLite() async throws {
    // Every statement runs on both; a difference throws StrataError.divergence(statement:details:).
    let db = try Database.open(differential: "memory:", "sqlite::memory:", drivers: [.memory, .sqlite])
    try await db.migrate(Todo.self)
    var todo = Todo(title: "write tests")
    try await todo.save(on: db)  // the ids both backends hand out must match too
    let open = try await Todo.query(on: db).where(\.done == false).all()
    #expect(open.map(\.title) == ["write tests"])
    // Raw SQL runs on SQLite but not on the memory driver: that is a divergence, not a silent pass.
    await #expect {
        try await db.unsafeRawExecute("SELECT 1")
    } throws: { error in
        if case StrataError.divergence = error { true } else { false }
    }
}
