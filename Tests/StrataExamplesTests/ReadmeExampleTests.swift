// ReadmeExampleTests: the README's examples, compiled and run, so they cannot rot.
import Foundation
import Strata
import StrataMemory
import StrataSQLite
import Testing

// README: "Declare models"
@Model
struct Team {
    var id: Int64?
    var title: String
}

@Model
struct Player {
    var id: Int64?  // primary key, nil until the first save
    var name: String
    @Column("mail") var email: String  // stored under an explicit column name
    var active = true
    var joinedAt = Date()
    var tags: [String] = []  // any Codable value is stored as JSON
    var teamID: Int64?
    @Transient var draft = ""  // not persisted

    static var indexes: [Index] { [.on(\Player.email, unique: true)] }
    static var foreignKeys: [ForeignKey] { [.from(\Player.teamID, to: Team.self)] }

    static func validations(_ v: inout Validations<Self>) {
        v.presence(\.name)
        v.uniqueness(\.email)
        v.format(\.email, matches: #/.+@.+/#)
    }
}

// README: "A model without the macro"
struct Note: Model {
    var id: Int64?
    var body: String

    static let schema = TableSchema(
        name: "note",
        columns: [
            TableColumn(\Note.id, "id", primaryKey: true),
            TableColumn(\Note.body, "body"),
        ])
    init(id: Int64? = nil, body: String) {
        self.id = id
        self.body = body
    }
    init(row: Row) throws {
        id = try row.decode(0)
        body = try row.decode(1)
    }
    var databaseValues: [DatabaseValue] { [id.databaseValue, body.databaseValue] }
}

@Suite("README examples")
struct ReadmeExampleTests {
    @Test("the quick tour runs on SQLite and on memory", arguments: ["sqlite", "memory"])
    func quickTour(_ driver: String) async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("readme-\(UUID().uuidString).sqlite")
            .path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let url = driver == "sqlite" ? "sqlite:\(path)" : "memory:"

        // README: "Open, migrate, save, query"
        let db = try Database.open(url, drivers: [.sqlite, .memory])
        try await db.migrate(Team.self, Player.self, Note.self)

        var alex = Player(name: "Alex", email: "alex@example.com")
        try await alex.save(on: db)  // INSERT; alex.id is now set
        alex.name = "Alexander"
        try await alex.save(on: db)  // UPDATE "player" SET "name" = ? WHERE "id" = ?

        let page = try await Player.query(on: db)
            .where(\.active == true && \.name ~~ "Al%")
            .where(\.id, in: [1, 15])
            .order(\.name).order(\.joinedAt, .descending)
            .limit(10).offset(0)
            .all()

        // README: "Transactions"
        try await db.transaction { tx in
            var team = Team(title: "Students")
            try team.save(tx)
            var john = Player(name: "John", email: "j@x.io", teamID: team.id)
            try john.save(tx)
            try tx.savepoint { _ in throw Rollback() }  // nested, rolled back alone
        }

        // README: "A model without the macro"
        var note = Note(body: "hand-written")
        try await note.save(on: db)

        #expect(page.map(\.name) == ["Alexander"])
        #expect(try await Player.query(on: db).count() == 2)
        #expect(try await Note.find(note.id ?? -1, on: db)?.body == "hand-written")
        var twin = Player(name: "Twin", email: "alex@example.com")
        await #expect(
            throws: StrataError.validationFailed([
                ValidationError(model: "Player", field: "mail", rule: "uniqueness")
            ])
        ) { try await twin.save(on: db) }
    }
}
