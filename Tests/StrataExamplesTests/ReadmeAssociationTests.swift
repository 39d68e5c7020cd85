// ReadmeAssociationTests: the README's association example, compiled and run on SQLite and memory.
import Foundation
import Strata
import StrataMemory
import StrataSQLite
import Testing

@Model struct Group {
    var id: Int64?
    var title: String
    static let users = hasMany(User.self, onDelete: .destroy)  // key by convention: users.group_id
}

@Model struct User {
    var id: Int64?
    var name: String
    var groupID: Int64?
    var managerID: Int64?
    static let group = belongsTo(Group.self)
    static let manager = belongsTo(User.self, key: \.managerID)  // self-referential, explicit key
    static let reports = hasMany(User.self, key: \.managerID, onDelete: .nullify)
    static let projects = hasMany(Project.self, through: Membership.self)  // membership.user_id, .project_id
}

@Model struct Project {
    var id: Int64?
    var name: String
}

@Model struct Membership {
    var id: Int64?
    var userID: Int64?
    var projectID: Int64?
    var role = "member"
    static let user = belongsTo(User.self)
    static let project = belongsTo(Project.self)
}

@Suite("README association example")
struct ReadmeAssociationTests {
    @Test("groups, users, projects: add, eager-load, join, cascade", arguments: ["sqlite", "memory"])
    func associations(_ driver: String) async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("assoc-\(UUID().uuidString).sqlite")
            .path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let db = try Database.open(driver == "sqlite" ? "sqlite:\(path)" : "memory:", drivers: [.sqlite, .memory])
        try await db.migrate(Group.self, User.self, Project.self, Membership.self)
        var apollo = Project(name: "Apollo")

        // README: "Associations"
        var g = Group(title: "Students")
        try await db.transaction { tx in
            var john = User(name: "John")
            try g.add(&john, to: Group.users, tx)  // sets john.groupID, saves john
            try john.add(&apollo, to: User.projects, tx)  // inserts the membership row
        }
        let before = db.statementCount
        let groups = try await Group.query(on: db).including(Group.users.including(User.projects)).all()  // 4 queries
        let queries = db.statementCount - before
        let users = try groups[0].loaded(Group.users)  // .associationNotLoaded if not included
        let pairs = try await User.query(on: db).join(User.group, .left)
            .where(User.group, \.title == "Students").order(User.group, \.title).allJoined(User.group)
        try await g.delete(on: db)  // destroys its users, their memberships; projects stay

        #expect(queries == 4)
        #expect(users.map(\.name) == ["John"])
        #expect(try users[0].loaded(User.projects).map(\.name) == ["Apollo"])
        #expect(pairs.map { $0.1?.title } == ["Students"])
        #expect(try await User.query(on: db).count() == 0)
        #expect(try await Membership.query(on: db).count() == 0)
        #expect(try await Project.query(on: db).count() == 1)
    }
}
