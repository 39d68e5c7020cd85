// Cases+Model: conveniences on a model itself: reloading its row, and validating without a connection.
import Strata

/// An account whose custom rule carries its own message.
@Model(table: "conf_signup")
struct ConfSignup {
    var id: Int64?
    var handle: String
    var email: String

    static func validations(_ v: inout Validations<Self>) {
        v.presence(\.handle)
        v.uniqueness(\.email)
        v.custom(\.handle, "no-spaces", message: "must not contain spaces") { !$0.contains(" ") }
    }
}

extension ConformanceSuite {
    static let modelCases: [ConformanceCase] = [
        ConformanceCase("model.reload") { db in
            let users = try await Fixtures.seedUsers(db)
            var mine = users[0]
            mine.name = "unsaved"
            guard var theirs = try await ConfUser.find(mine.id ?? -1, on: db) else {
                throw ConformanceFailure(description: "the seeded user is found")
            }
            theirs.age = 99
            try await theirs.save(on: db)
            try await mine.reload(on: db)
            try checkEqual(mine.age, 99, "reload reads the other writer's value")
            try checkEqual(mine.name, users[0].name, "and forgets the unsaved assignment")
            try await mine.save(on: db)
            try checkEqual(
                try await ConfUser.find(mine.id ?? -1, on: db)?.age, 99, "a reloaded model saves nothing stale")
            try await ConfUser.query(on: db).where(\.id == mine.id).delete()
            try await checkThrows(
                "reloading a deleted row",
                {
                    if case .recordNotFound("ConfUser", _) = $0 { return true }
                    return false
                }
            ) { try await mine.reload(on: db) }
            var unsaved = ConfUser(name: "n", email: "n@x.io")
            try await checkThrows(
                "reloading an unsaved model",
                {
                    if case .notPersisted("ConfUser") = $0 { return true }
                    return false
                }
            ) { try await unsaved.reload(on: db) }
        },
        ConformanceCase("model.validation-without-a-connection") { db in
            let bad = ConfSignup(handle: "a b", email: "x@x.io")
            try checkEqual(bad.isValid, false, "a failing custom rule makes the model invalid")
            try checkEqual(
                bad.validationErrors().map(\.description),
                ["ConfSignup.handle fails no-spaces: must not contain spaces"],
                "the custom rule's own message")
            let blank = ConfSignup(handle: "", email: "y@x.io")
            try checkEqual(
                blank.validationErrors().map(\.message), ["can't be blank"], "the built-in rule's default message")
            try checkEqual(ConfSignup(handle: "ok", email: "z@x.io").isValid, true, "a valid model")
            // With a connection, save runs the same rules plus uniqueness, and reports the same messages.
            try await db.migrate(ConfSignup.self)
            var first = ConfSignup(handle: "ok", email: "z@x.io")
            try await first.save(on: db)
            var twin = ConfSignup(handle: "two words", email: "z@x.io")
            try checkEqual(twin.validationErrors().count, 1, "uniqueness is skipped without a connection")
            try await checkThrows(
                "save runs every rule",
                {
                    guard case .validationFailed(let errors) = $0 else { return false }
                    return Set(errors.map(\.message)) == ["must not contain spaces", "has already been taken"]
                }
            ) { try await twin.save(on: db) }
            try checkEqual(try await ConfSignup.query(on: db).count(), 1, "nothing written")
        },
    ]
}
