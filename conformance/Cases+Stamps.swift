// Cases+Stamps: timestamps that save and update fill in, and the optimistic-lock version column.
import Foundation
import Strata

@Model(table: "conf_stamped")
struct ConfStamped {
    var id: Int64?
    var title: String
    @CreatedAt var createdAt = Date(timeIntervalSince1970: 0)
    @UpdatedAt var updatedAt: Date?
}

@Model(table: "conf_versioned")
struct ConfVersioned {
    var id: Int64?
    var title: String
    @Version var version: Int64 = 0
}

extension ConformanceSuite {
    static let stampCases: [ConformanceCase] = [
        ConformanceCase("timestamp.set-on-create-and-update") { db in
            try await db.migrate(ConfStamped.self)
            let before = Date()
            var note = ConfStamped(title: "a")
            try await note.save(on: db)
            try check(abs(note.createdAt.timeIntervalSince(before)) < 60, "createdAt is now: \(note.createdAt)")
            try checkEqual(note.updatedAt, note.createdAt, "a create sets both to the same instant")
            let stored = try await ConfStamped.find(note.id ?? -1, on: db)
            try checkEqual(stored?.createdAt, note.createdAt, "microsecond-exact round trip of createdAt")
            try checkEqual(stored?.updatedAt, note.updatedAt, "and of updatedAt")
            try await Task.sleep(nanoseconds: 2_000_000)
            note.title = "b"
            try await note.save(on: db)
            try check((note.updatedAt ?? .distantPast) > note.createdAt, "an update moves updatedAt on")
            let updated = try await ConfStamped.find(note.id ?? -1, on: db)
            try checkEqual(updated?.createdAt, note.createdAt, "createdAt stays")
            try checkEqual(updated?.updatedAt, note.updatedAt, "the stored updatedAt is the model's")
            let stamp = note.updatedAt
            try await note.save(on: db)
            try checkEqual(note.updatedAt, stamp, "a save with nothing to write stamps nothing")
            try await Task.sleep(nanoseconds: 2_000_000)
            try await ConfStamped.query(on: db).set(\.title, to: "bulk").update()
            let bulk = try await ConfStamped.find(note.id ?? -1, on: db)
            try check((bulk?.updatedAt ?? .distantPast) > (stamp ?? .distantFuture), "bulk update() stamps updatedAt")
            try checkEqual(bulk?.createdAt, note.createdAt, "and leaves createdAt")
        },
        ConformanceCase("locking.version-detects-stale-saves") { db in
            try await db.migrate(ConfVersioned.self)
            var original = ConfVersioned(title: "draft")
            try await original.save(on: db)
            guard var mine = try await ConfVersioned.find(original.id ?? -1, on: db),
                var theirs = try await ConfVersioned.find(original.id ?? -1, on: db)
            else { throw ConformanceFailure(description: "the row is found") }
            mine.title = "mine"
            try await mine.save(on: db)
            try checkEqual(mine.version, 1, "a save increments the version")
            theirs.title = "theirs"
            try await checkThrows(
                "a save from a stale copy",
                {
                    if case .staleRecord("ConfVersioned", _, 0) = $0 { return true }
                    return false
                }
            ) { try await theirs.save(on: db) }
            try checkEqual(theirs.version, 0, "the failed save leaves the copy's version as read")
            let stored = try await ConfVersioned.find(original.id ?? -1, on: db)
            try checkEqual(stored?.title, "mine", "the stale save wrote nothing")
            try checkEqual(stored?.version, 1, "nor moved the version")
            try await theirs.reload(on: db)
            theirs.title = "theirs, merged"
            try await theirs.save(on: db)
            try checkEqual(theirs.version, 2, "after reloading, the save goes through")
            try await ConfVersioned.query(on: db).delete()
            mine.title = "gone"
            try await checkThrows(
                "a versioned save of a deleted row",
                {
                    if case .staleRecord = $0 { return true }
                    return false
                }
            ) { try await mine.save(on: db) }
            try checkEqual(try await ConfVersioned.query(on: db).count(), 0, "nothing re-inserted")
        },
    ]
}
