// Cases+Callbacks: lifecycle callbacks run in order, inside the write's savepoint, and a throw undoes it all.
import Strata

/// What a test callback throws: a plain Swift error, not a StrataError, as an app's would be.
struct ConfCallbackError: Error, Equatable {
    let at: String
}

@Model(table: "conf_audit")
struct ConfAudit {
    var id: Int64?
    var event: String
}

/// A post whose every callback writes an audit row; `failAt` names the callback that throws after writing.
@Model(table: "conf_post")
struct ConfPost {
    var id: Int64?
    var title: String
    var slug = ""
    var failAt = ""
    static let notes = hasMany(ConfNote.self, onDelete: .destroy)

    func audit(_ event: String, _ tx: Transaction) throws {
        var entry = ConfAudit(event: event)
        try entry.save(tx)
        if failAt == event { throw ConfCallbackError(at: event) }
    }

    mutating func willValidate(_ tx: Transaction) throws { try audit("willValidate", tx) }
    func didValidate(_ tx: Transaction) throws { try audit("didValidate", tx) }
    mutating func willSave(_ tx: Transaction) throws {
        slug = title.lowercased()
        try audit("willSave", tx)
    }
    mutating func willCreate(_ tx: Transaction) throws { try audit("willCreate", tx) }
    mutating func willUpdate(_ tx: Transaction) throws { try audit("willUpdate", tx) }
    func didCreate(_ tx: Transaction) throws { try audit("didCreate", tx) }
    func didUpdate(_ tx: Transaction) throws { try audit("didUpdate", tx) }
    func didSave(_ tx: Transaction) throws { try audit("didSave", tx) }
    func willDelete(_ tx: Transaction) throws { try audit("willDelete", tx) }
    func didDelete(_ tx: Transaction) throws { try audit("didDelete", tx) }
}

@Model(table: "conf_note")
struct ConfNote {
    var id: Int64?
    var body: String
    var confPostID: Int64?
    static let post = belongsTo(ConfPost.self)

    func willDelete(_ tx: Transaction) throws {
        var entry = ConfAudit(event: "note willDelete \(body)")
        try entry.save(tx)
    }
    func didDelete(_ tx: Transaction) throws {
        var entry = ConfAudit(event: "note didDelete \(body)")
        try entry.save(tx)
    }
}

extension ConformanceSuite {
    static func auditTrail(_ db: Database) async throws -> [String] {
        try await ConfAudit.query(on: db).order(\.id).all().map(\.event)
    }

    /// Expects `body` to throw the callback error thrown at `event`.
    static func expectCallbackError(_ event: String, _ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch let error as ConfCallbackError {
            try checkEqual(error, ConfCallbackError(at: event), "the callback's own error comes back")
            return
        }
        throw ConformanceFailure(description: "the callback at \(event) threw nothing")
    }

    static let callbackCases: [ConformanceCase] = [
        ConformanceCase("callback.order-on-create-and-update") { db in
            try await db.migrate(ConfPost.self, ConfAudit.self)
            var post = ConfPost(title: "Hello World")
            try await post.save(on: db)
            try checkEqual(
                try await auditTrail(db),
                ["willValidate", "didValidate", "willSave", "willCreate", "didCreate", "didSave"], "create order")
            try checkEqual(
                try await ConfPost.find(post.id ?? -1, on: db)?.slug, "hello world", "willSave's change saved")
            try await ConfAudit.query(on: db).delete()
            post.title = "Bye"
            try await post.save(on: db)
            try checkEqual(
                try await auditTrail(db),
                ["willValidate", "didValidate", "willSave", "willUpdate", "didUpdate", "didSave"], "update order")
            try checkEqual(try await ConfPost.find(post.id ?? -1, on: db)?.slug, "bye", "slug follows the update")
        },
        ConformanceCase("callback.before-callback-throws-nothing-written") { db in
            try await db.migrate(ConfPost.self, ConfAudit.self)
            var post = ConfPost(title: "t", failAt: "willCreate")
            try await expectCallbackError("willCreate") { try await post.save(on: db) }
            try checkEqual(try await ConfPost.query(on: db).count(), 0, "no post")
            try checkEqual(try await ConfAudit.query(on: db).count(), 0, "the callbacks' own writes are undone")
        },
        ConformanceCase("callback.after-callback-throws-rolls-back-the-write") { db in
            try await db.migrate(ConfPost.self, ConfAudit.self)
            try await db.transaction { tx in
                var bad = ConfPost(title: "bad", failAt: "didSave")
                do {
                    try bad.save(tx)
                    throw ConformanceFailure(description: "didSave's error reached the caller")
                } catch is ConfCallbackError {}
                var good = ConfPost(title: "good")
                try good.save(tx)  // the transaction is still usable after the caught error
            }
            try checkEqual(try await ConfPost.query(on: db).all().map(\.title), ["good"], "only the good post")
            try checkEqual(try await ConfAudit.query(on: db).count(), 6, "only the good post's six callbacks")
        },
        ConformanceCase("callback.delete-runs-children-callbacks") { db in
            try await db.migrate(ConfPost.self, ConfAudit.self)
            var post = ConfPost(title: "p")
            try await post.save(on: db)
            try await db.transaction { tx in
                for body in ["a", "b"] {
                    var note = ConfNote(body: body, confPostID: post.id)
                    try note.save(tx)
                }
            }
            try await ConfAudit.query(on: db).delete()
            try await post.delete(on: db)
            try checkEqual(
                try await auditTrail(db),
                [
                    "willDelete", "note willDelete a", "note didDelete a", "note willDelete b", "note didDelete b",
                    "didDelete",
                ],
                "the owner's callbacks wrap the children's, destroyed one by one")
            try checkEqual(try await ConfNote.query(on: db).count(), 0, "children destroyed")
        },
        ConformanceCase("callback.delete-callback-throws-nothing-deleted") { db in
            try await db.migrate(ConfPost.self, ConfAudit.self)
            var post = ConfPost(title: "p", failAt: "didDelete")
            try await post.save(on: db)
            var note = ConfNote(body: "n", confPostID: post.id)
            try await note.save(on: db)
            let audits = try await ConfAudit.query(on: db).count()
            try await expectCallbackError("didDelete") { try await post.delete(on: db) }
            try checkEqual(try await ConfPost.query(on: db).count(), 1, "the post is still there")
            try checkEqual(try await ConfNote.query(on: db).count(), 1, "and its child")
            try checkEqual(try await ConfAudit.query(on: db).count(), audits, "no callback write survives")
        },
        ConformanceCase("callback.bulk-operations-skip-callbacks") { db in
            try await db.migrate(ConfPost.self, ConfAudit.self)
            var post = ConfPost(title: "p")
            try await post.save(on: db)
            try await ConfAudit.query(on: db).delete()
            try await ConfPost.query(on: db).set(\.title, to: "q").update()
            try await ConfPost.query(on: db).delete()
            try checkEqual(try await ConfAudit.query(on: db).count(), 0, "bulk update and delete run no callback")
            try checkEqual(try await ConfPost.query(on: db).count(), 0, "the bulk delete happened")
        },
    ]
}
