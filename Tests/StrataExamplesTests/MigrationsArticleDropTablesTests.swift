// MigrationsArticleDropTablesTests: the Migrations article's `dropTables` example, compiled and run, with the refusal
// it describes: a table that a table not listed references is kept, with every row of both tables.
import Strata
import StrataMemory
import StrataSQLite
import Testing

@Suite("Migrations article: dropTables")
struct MigrationsArticleDropTablesTests {
    @Test(
        "players and teams dropped together in any order; teams alone refused",
        arguments: ["sqlite::memory:", "memory:"])
    func dropTogether(_ url: String) async throws {
        let db = try Database.open(url, drivers: [.sqlite, .memory])
        try await db.migrate(Team.self, Player.self)
        var team = Team(title: "red")
        try await team.save(on: db)
        var player = Player(name: "Ann", email: "ann@x.io", teamID: team.id)
        try await player.save(on: db)

        await #expect(throws: StrataError.tableReferenced(Team.schema.name, by: Player.schema.name)) {
            try await db.dropTables(Team.self)
        }
        #expect(try await Team.query(on: db).count() == 1)
        #expect(try await Player.query(on: db).count() == 1)

        // Migrations article, "Automatic migration":
        try await db.dropTables(Team.self, Player.self)  // players first: they reference teams
        let left = try await db.withConnection { tx in
            [try tx.columns(of: Team.schema.name), try tx.columns(of: Player.schema.name)]
        }
        #expect(left == [nil, nil])
    }
}
