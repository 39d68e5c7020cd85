// Cases+Polymorphic: a child pointing at one of several owner types, and belongsTo's own delete rules.
import Strata

/// Owners of remarks, one per delete rule.
@Model(table: "conf_article")
struct ConfArticle {
    var id: Int64?
    var title: String
    static let remarks = hasMany(ConfRemark.self, as: "subject", onDelete: .destroy)
}

@Model(table: "conf_photo")
struct ConfPhoto {
    var id: Int64?
    var caption: String
    static let remarks = hasMany(ConfRemark.self, as: "subject", onDelete: .nullify)
}

@Model(table: "conf_video")
struct ConfVideo {
    var id: Int64?
    var name: String
    static let remarks = hasMany(ConfRemark.self, as: "subject", onDelete: .restrict)
}

/// A remark on an article, a photo or a video (`subject_type`, `subject_id`).
@Model(table: "conf_remark")
struct ConfRemark {
    var id: Int64?
    var body: String
    var subjectType: String?
    var subjectID: Int64?
    static let subject = belongsTo(polymorphic: "subject", ConfArticle.self, ConfPhoto.self, ConfVideo.self)
}

/// Parents that declare no association: their riders' `belongsTo(…, onDelete:)` decides.
@Model(table: "conf_stable")
struct ConfStable {
    var id: Int64?
    var name: String
}

@Model(table: "conf_coach")
struct ConfCoach {
    var id: Int64?
    var name: String
}

@Model(table: "conf_rider")
struct ConfRider {
    var id: Int64?
    var name: String
    var confStableID: Int64?
    var confCoachID: Int64?
    static let stable = belongsTo(ConfStable.self, onDelete: .destroy)
    static let coach = belongsTo(ConfCoach.self, onDelete: .nullify)
}

extension ConformanceSuite {
    /// Article 1 and photo 1 and video 1 share the id 1: only the type tells their remarks apart. The article has
    /// remarks a1, a2; the photo p1; the video v1; one remark has no subject.
    static func seedRemarks(_ db: Database) async throws -> (article: ConfArticle, photo: ConfPhoto, video: ConfVideo) {
        try await db.migrate(ConfRemark.self, ConfArticle.self, ConfPhoto.self, ConfVideo.self)
        return try await db.transaction { tx in
            var article = ConfArticle(title: "Article")
            var photo = ConfPhoto(caption: "Photo")
            var video = ConfVideo(name: "Video")
            for body in ["a1", "a2"] {
                var remark = ConfRemark(body: body)
                try article.add(&remark, to: ConfArticle.remarks, tx)
            }
            var p1 = ConfRemark(body: "p1")
            try photo.add(&p1, to: ConfPhoto.remarks, tx)
            var v1 = ConfRemark(body: "v1")
            try video.add(&v1, to: ConfVideo.remarks, tx)
            var loose = ConfRemark(body: "loose")
            try loose.save(tx)
            return (article, photo, video)
        }
    }

    static func remarkBodies(_ db: Database) async throws -> [String] {
        try await ConfRemark.query(on: db).order(\.body).all().map(\.body)
    }

    static let polymorphicCases: [ConformanceCase] = [
        ConformanceCase("polymorphic.add-and-fetch") { db in
            let w = try await seedRemarks(db)
            try checkEqual(w.article.id, w.photo.id, "the owners share an id")
            try checkEqual(
                try await w.article.fetch(ConfArticle.remarks, on: db).map(\.body).sorted(), ["a1", "a2"],
                "the article's remarks, not the photo's with the same id")
            try checkEqual(try await w.photo.fetch(ConfPhoto.remarks, on: db).map(\.body), ["p1"], "the photo's")
            guard let p1 = try await ConfRemark.query(on: db).where(\.body == "p1").first() else {
                throw ConformanceFailure(description: "p1 missing")
            }
            try checkEqual(p1.subjectType, "ConfPhoto", "the type column holds the owner's model name")
            let parent = try await p1.fetch(ConfRemark.subject, on: db)
            try checkEqual((parent as? ConfPhoto)?.caption, "Photo", "the parent comes back as its own type")
        },
        ConformanceCase("polymorphic.set-and-clear") { db in
            let w = try await seedRemarks(db)
            guard var loose = try await ConfRemark.query(on: db).where(\.body == "loose").first() else {
                throw ConformanceFailure(description: "loose missing")
            }
            try checkEqual(try await loose.fetch(ConfRemark.subject, on: db) == nil, true, "no subject yet")
            try loose.set(ConfRemark.subject, to: w.video)
            try await loose.save(on: db)
            try checkEqual(
                try await w.video.fetch(ConfVideo.remarks, on: db).map(\.body).sorted(), ["loose", "v1"], "set")
            try loose.set(ConfRemark.subject, to: ConfVideo?.none)
            try await loose.save(on: db)
            try checkEqual(loose.subjectType, nil, "clearing empties the type")
            try checkEqual(try await w.video.fetch(ConfVideo.remarks, on: db).map(\.body), ["v1"], "cleared")
            let group = ConfGroup(id: 1, title: "not declared")
            try await checkThrows(
                "a type the association does not declare", { if case .invalidAssociation = $0 { true } else { false } }
            ) {
                try loose.set(ConfRemark.subject, to: group)
            }
        },
        ConformanceCase("polymorphic.eager-load-parents") { db in
            _ = try await seedRemarks(db)
            let before = db.statementCount
            let remarks = try await ConfRemark.query(on: db).including(ConfRemark.subject).order(\.body).all()
            try check(
                db.statementCount - before <= 4,
                "one query for the remarks and one per type, got \(db.statementCount - before)")
            let described = try remarks.map { remark -> String in
                switch try remark.loaded(ConfRemark.subject) {
                case let a as ConfArticle: return "\(remark.body):article \(a.title)"
                case let p as ConfPhoto: return "\(remark.body):photo \(p.caption)"
                case let v as ConfVideo: return "\(remark.body):video \(v.name)"
                case nil: return "\(remark.body):none"
                default: return "\(remark.body):other"
                }
            }
            try checkEqual(
                described,
                ["a1:article Article", "a2:article Article", "loose:none", "p1:photo Photo", "v1:video Video"],
                "each remark's own parent type")
        },
        ConformanceCase("polymorphic.eager-load-children") { db in
            let w = try await seedRemarks(db)
            var other = ConfArticle(title: "Other")
            try await other.save(on: db)
            let articles = try await ConfArticle.query(on: db).including(ConfArticle.remarks).order(\.title).all()
            try checkEqual(
                try articles.map { try $0.loaded(ConfArticle.remarks).map(\.body) }, [["a1", "a2"], []],
                "children by type and id, in id order")
            let photos = try await ConfPhoto.query(on: db).including(ConfPhoto.remarks).all()
            try checkEqual(try photos.map { try $0.loaded(ConfPhoto.remarks).map(\.body) }, [["p1"]], "photo's")
            _ = w
        },
        ConformanceCase("polymorphic.join") { db in
            _ = try await seedRemarks(db)
            let pairs = try await ConfArticle.query(on: db).join(ConfArticle.remarks)
                .order(ConfArticle.remarks, \.body).allJoined(ConfArticle.remarks)
            try checkEqual(pairs.map { $0.1?.body ?? "-" }, ["a1", "a2"], "the join matches the type too")
            let photos = try await ConfPhoto.query(on: db).join(ConfPhoto.remarks)
                .where(ConfPhoto.remarks, \.body == "a1").count()
            try checkEqual(photos, 0, "an article's remark never joins the photo with the same id")
        },
        ConformanceCase("polymorphic.destroy") { db in
            let w = try await seedRemarks(db)
            try await w.article.delete(on: db)
            try checkEqual(try await remarkBodies(db), ["loose", "p1", "v1"], "the article's remarks went with it")
        },
        ConformanceCase("polymorphic.nullify") { db in
            let w = try await seedRemarks(db)
            try await w.photo.delete(on: db)
            guard let p1 = try await ConfRemark.query(on: db).where(\.body == "p1").first() else {
                throw ConformanceFailure(description: "p1 was deleted")
            }
            try checkEqual(p1.subjectType, nil, "type cleared")
            try checkEqual(p1.subjectID, nil, "id cleared")
            try checkEqual(try await remarkBodies(db).count, 5, "every remark kept")
        },
        ConformanceCase("polymorphic.restrict") { db in
            let w = try await seedRemarks(db)
            try await checkThrows(
                "deleting a video with remarks", { if case .deleteRestricted = $0 { true } else { false } }
            ) {
                try await w.video.delete(on: db)
            }
            try checkEqual(try await ConfVideo.query(on: db).count(), 1, "the video stays")
            try checkEqual(try await remarkBodies(db).count, 5, "every remark stays")
        },
        ConformanceCase("polymorphic.unknown-type-name") { db in
            _ = try await seedRemarks(db)
            guard var loose = try await ConfRemark.query(on: db).where(\.body == "loose").first() else {
                throw ConformanceFailure(description: "loose missing")
            }
            loose.subjectType = "ConfGhost"
            loose.subjectID = 1
            try await loose.save(on: db)
            let named: (StrataError) -> Bool = {
                if case .invalidValue("conf_remark", "subject_type", _) = $0 { true } else { false }
            }
            try await checkThrows("fetching a parent of an unknown type", named) {
                try await loose.fetch(ConfRemark.subject, on: db)
            }
            try await checkThrows("eager loading a parent of an unknown type", named) {
                try await ConfRemark.query(on: db).including(ConfRemark.subject).all()
            }
            try checkEqual(try await remarkBodies(db).count, 5, "nothing changed")
        },
        ConformanceCase("polymorphic.belongs-to-on-delete") { db in
            try await db.migrate(ConfRider.self)
            let (stable, coach) = try await db.transaction { tx in
                var stable = ConfStable(name: "North")
                var coach = ConfCoach(name: "Kim")
                try stable.save(tx)
                try coach.save(tx)
                for name in ["Ada", "Bo"] {
                    var rider = ConfRider(name: name)
                    try rider.set(ConfRider.stable, to: stable)
                    try rider.set(ConfRider.coach, to: coach)
                    try rider.save(tx)
                }
                return (stable, coach)
            }
            try await coach.delete(on: db)
            let riders = try await ConfRider.query(on: db).order(\.name).all()
            try checkEqual(riders.map(\.name), ["Ada", "Bo"], "nullify keeps the riders")
            try checkEqual(riders.map(\.confCoachID), [nil, nil], "and clears their key")
            try await stable.delete(on: db)
            try checkEqual(try await ConfRider.query(on: db).count(), 0, "destroy: the stable's riders went with it")
        },
    ]
}
