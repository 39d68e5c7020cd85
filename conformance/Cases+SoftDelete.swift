// Cases+SoftDelete: @DeletedAt models keep their rows; queries, finds, eager loads and joins skip them.
import Foundation
import Strata

@Model(table: "conf_folder")
struct ConfFolder {
    var id: Int64?
    var name: String
    @DeletedAt var deletedAt: Date?
    static let files = hasMany(ConfFile.self, onDelete: .destroy)
    static let labels = hasMany(ConfLabel.self, onDelete: .destroy)
}

@Model(table: "conf_file")
struct ConfFile {
    var id: Int64?
    var name: String
    var confFolderID: Int64?
    @DeletedAt var deletedAt: Date?
    static let folder = belongsTo(ConfFolder.self)
}

/// A child that is not soft-deleted itself.
@Model(table: "conf_label")
struct ConfLabel {
    var id: Int64?
    var text: String
    var confFolderID: Int64?
}

extension ConformanceSuite {
    /// A folder with files `a`, `b` and labels `x`, `y`.
    static func seedFolder(_ db: Database, _ name: String = "docs") async throws -> ConfFolder {
        try await db.migrate(ConfFolder.self)
        return try await db.transaction { tx in
            var folder = ConfFolder(name: name)
            try folder.save(tx)
            for n in ["a", "b"] {
                var file = ConfFile(name: n, confFolderID: folder.id)
                try file.save(tx)
            }
            for t in ["x", "y"] {
                var label = ConfLabel(text: t, confFolderID: folder.id)
                try label.save(tx)
            }
            return folder
        }
    }

    static let softDeleteCases: [ConformanceCase] = [
        ConformanceCase("soft-delete.delete-hides-the-row") { db in
            let kept = try await seedFolder(db, "kept")
            let gone = try await seedFolder(db, "gone")
            try checkEqual(try await gone.delete(on: db), true, "delete reports the row")
            try checkEqual(try await ConfFolder.query(on: db).all().map(\.name), ["kept"], "queries skip it")
            try checkEqual(try await ConfFolder.query(on: db).withDeleted().count(), 2, "withDeleted sees it")
            let deleted = try await ConfFolder.query(on: db).onlyDeleted().all()
            try checkEqual(deleted.map(\.name), ["gone"], "onlyDeleted sees only it")
            try check(deleted.first?.deletedAt != nil, "its deletedAt is set")
            try checkEqual(try await ConfFolder.find(gone.id ?? -1, on: db)?.name, nil, "find skips it")
            try checkEqual(try await ConfFolder.find(kept.id ?? -1, on: db)?.name, "kept", "find sees the other")
            try checkEqual(try await gone.delete(on: db), false, "a second delete finds nothing to delete")
        },
        ConformanceCase("soft-delete.restore-and-force-delete") { db in
            var folder = try await seedFolder(db)
            try await folder.delete(on: db)
            try await folder.restore(on: db)
            try checkEqual(folder.deletedAt, nil, "restore clears the model's deletedAt")
            try checkEqual(try await ConfFolder.query(on: db).count(), 1, "and the row is back")
            try await ConfFolder.query(on: db).delete()
            try checkEqual(try await ConfFolder.query(on: db).count(), 0, "bulk delete soft-deletes")
            try checkEqual(try await ConfFolder.query(on: db).onlyDeleted().restore(), 1, "bulk restore")
            try checkEqual(try await ConfFolder.query(on: db).count(), 1, "restored")
            try await folder.forceDelete(on: db)
            try checkEqual(try await ConfFolder.query(on: db).withDeleted().count(), 0, "forceDelete removes the row")
            try checkEqual(try await ConfFile.query(on: db).withDeleted().count(), 0, "with its destroyed files")
            try checkEqual(try await ConfLabel.query(on: db).count(), 0, "and labels")
        },
        ConformanceCase("soft-delete.eager-loads-and-joins-skip-deleted") { db in
            let folder = try await seedFolder(db)
            let b = try await ConfFile.query(on: db).where(\.name == "b").first()
            try await b?.delete(on: db)
            let loaded = try await ConfFolder.query(on: db).including(ConfFolder.files).all()
            try checkEqual(try loaded.first?.loaded(ConfFolder.files).map(\.name), ["a"], "eager load skips b")
            let pairs = try await ConfFolder.query(on: db).join(ConfFolder.files, .left).order(ConfFolder.files, \.name)
                .allJoined(ConfFolder.files)
            try checkEqual(pairs.map { $0.1?.name }, ["a"], "a join skips b")
            let all = try await ConfFolder.query(on: db).withDeleted().join(ConfFolder.files, .left)
                .order(ConfFolder.files, \.name).allJoined(ConfFolder.files)
            try checkEqual(all.map { $0.1?.name }, ["a", "b"], "withDeleted joins b too")
            try await folder.delete(on: db)
            let files = try await ConfFile.query(on: db).withDeleted().including(ConfFile.folder).order(\.name).all()
            try checkEqual(
                try files.map { try $0.loaded(ConfFile.folder)?.name }, [nil, nil],
                "a soft-deleted parent is not eager-loaded")
            try checkEqual(
                try await ConfFile.query(on: db).withDeleted().join(ConfFile.folder).where(
                    ConfFile.folder, \.name == "docs"
                )
                .withDeleted().count(), 2, "withDeleted joins the deleted parent")
            try checkEqual(
                try await ConfFile.query(on: db).onlyDeleted().join(ConfFile.folder).count(), 0,
                "an inner join to a soft-deleted parent keeps no row")
        },
        ConformanceCase("soft-delete.rules-apply-in-kind") { db in
            let folder = try await seedFolder(db)
            try await folder.delete(on: db)
            try checkEqual(try await ConfFile.query(on: db).count(), 0, "destroy soft-deletes soft-deleted children")
            try checkEqual(try await ConfFile.query(on: db).onlyDeleted().count(), 2, "whose rows stay")
            try checkEqual(try await ConfLabel.query(on: db).count(), 2, "other children stay, their owner's row too")
            try await folder.forceDelete(on: db)
            try checkEqual(try await ConfFile.query(on: db).withDeleted().count(), 0, "forceDelete destroys for good")
            try checkEqual(try await ConfLabel.query(on: db).count(), 0, "every child")
        },
    ]
}
