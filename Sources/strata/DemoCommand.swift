// DemoCommand: `strata demo` tells a short story on SQLite by default, or on whatever DATABASE_URL names.
import ArgumentParser
import Foundation
import Strata

struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run a short story: migrate, save, query, update changed columns, roll back a transaction."
    )

    @Option(help: "The database URL (default: DATABASE_URL, else sqlite:strata-demo.sqlite).")
    var url: String?

    mutating func run() async throws {
        let db =
            try url.map { try Database.open($0, drivers: StrataCommand.drivers) }
            ?? Database.fromEnvironment(drivers: StrataCommand.drivers, fallback: "sqlite:strata-demo.sqlite")
        defer { db.close() }
        print("1. Opened a \(db.driverName) database.")

        try await db.dropTables(Membership.self, Project.self, User.self, Group.self)
        try await db.migrate(Group.self, User.self, Project.self, Membership.self)
        print("2. Migrated: tables group, user, project and membership created.")

        var students = Group(title: "Students")
        try await students.save(on: db)
        var alex = User(name: "Alex", email: "alex@example.com", tags: ["swift"], groupID: students.id)
        var bea = User(name: "Bea", email: "bea@example.com", groupID: students.id)
        var carl = User(name: "Carl", email: "carl@example.com", active: false)
        try await alex.save(on: db)
        try await bea.save(on: db)
        try await carl.save(on: db)
        print(
            "3. Saved group #\(students.id ?? 0) and users #\(alex.id ?? 0) Alex, #\(bea.id ?? 0) Bea, #\(carl.id ?? 0) Carl."
        )

        let active = try await User.query(on: db).where(\.active == true && \.name ~~ "%e%").order(\.name).all()
        print("4. Active users whose name contains 'e': \(active.map(\.name))")

        alex.name = "Alexander"
        let before = db.statementCount
        try await alex.save(on: db)
        let used = db.statementCount - before
        let renamed = try await User.find(alex.id ?? 0, on: db)?.name ?? "?"
        print("5. Renamed Alex to \(renamed) in \(used) statements: the email uniqueness check,")
        print("   then an UPDATE of the one changed column (name).")

        var broken = User(name: "", email: "not-an-email")
        do {
            try await broken.save(on: db)
        } catch let StrataError.validationFailed(errors) {
            print("6. Validation refused a user: \(errors.map(\.description).joined(separator: "; ")).")
        }

        var twin = User(name: "Twin", email: "bea@example.com")
        do {
            try await twin.save(on: db)
        } catch let StrataError.validationFailed(errors) {
            print(
                "7. A duplicate email is caught before writing: \(errors.map(\.description).joined(separator: "; ")).")
        }

        let countBefore = try await User.query(on: db).count()
        try await db.transaction { tx in
            var ghost = User(name: "Ghost", email: "ghost@example.com")
            try ghost.save(tx)
            try tx.savepoint { sp in
                var inner = User(name: "Inner", email: "inner@example.com")
                try inner.save(sp)
                throw Rollback()
            }
            throw Rollback()
        }
        let countAfter = try await User.query(on: db).count()
        print(
            "8. A transaction saved Ghost (and a savepoint saved Inner), then rolled back: \(countBefore) users before, \(countAfter) after."
        )

        let moved = try await User.query(on: db).where(\.groupID == nil).set(\.active, to: true).update()
        let page = try await User.query(on: db).order(\.id, .descending).limit(2).all()
        print("9. Reactivated \(moved) user(s) without a group; newest two: \(page.map(\.name)).")

        try await associations(db, students: students, alex: &alex, bea: &bea)
        print("Done: \(db.statementCount) statements on \(db.driverName).")
    }

    /// The second half of the story: associations, eager loading, a join, a cascading delete.
    private func associations(_ db: Database, students: Group, alex: inout User, bea: inout User) async throws {
        var apollo = Project(name: "Apollo")
        var gemini = Project(name: "Gemini")
        try await db.transaction { [alex, bea] tx in
            var a = alex
            var b = bea
            try a.add(&apollo, to: User.projects, tx)
            try b.add(&apollo, to: User.projects, tx)
            try b.add(&gemini, to: User.projects, tx)
        }
        let projects = try await bea.fetch(User.projects, on: db).map(\.name)
        print("10. Bea works on \(projects) (through memberships).")

        let before = db.statementCount
        let groups = try await Group.query(on: db).including(Group.users.including(User.projects)).all()
        let loaded = try groups.flatMap { try $0.loaded(Group.users) }
            .map { "\($0.name) on \(try $0.loaded(User.projects).map(\.name).joined(separator: " and "))" }
        print("11. Eager-loaded groups, their users and their projects in \(db.statementCount - before) queries:")
        print("    \(loaded.joined(separator: "; ")).")

        do {
            let pairs = try await User.query(on: db).join(User.group, .left).order(\.name).allJoined(User.group)
            print(
                "12. Users with their group (left join): \(pairs.map { "\($0.0?.name ?? "-")/\($0.1?.title ?? "none")" })"
            )
        } catch let StrataError.unsupported(feature, driver) {
            print("12. The \(driver) driver does not support \(feature) yet; skipped.")
        }

        try await students.delete(on: db)
        let users = try await User.query(on: db).count()
        let memberships = try await Membership.query(on: db).count()
        let kept = try await Project.query(on: db).count()
        print(
            "13. Deleted the group: its users and their memberships went with it (\(users) user, \(memberships) memberships left);"
        )
        print("    the \(kept) projects stay.")
    }
}
