// Cases+CompositeKeyThrough: hasMany(through:) whose join model's key to the owner or to the target has several
// columns (that model's key is a composite one): loading, eager loading, joins, whereExists, add, remove, delete.
import Strata

/// A course keyed by its term and code.
@Model(table: "conf_course", primaryKey: ["term", "code"])
struct ConfCourse {
    var term: Int64
    var code: String
    var title: String
    static let students = hasMany(
        ConfStudent.self, through: ConfEnrollment.self, ownerKeys: \.term, \.courseCode, targetKeys: \.studentID)
}

/// A student, reaching courses through enrollments by a two-column target key.
@Model(table: "conf_student")
struct ConfStudent {
    var id: Int64?
    var name: String
    static let courses = hasMany(
        ConfCourse.self, through: ConfEnrollment.self, ownerKeys: \.studentID, targetKeys: \.term, \.courseCode)
}

/// The join model: a two-column foreign key to the course, one column to the student.
@Model(table: "conf_enrollment")
struct ConfEnrollment {
    var id: Int64?
    var term: Int64
    var courseCode: String
    var studentID: Int64
    static let course = belongsTo(ConfCourse.self, keys: \.term, \.courseCode)
    static let student = belongsTo(ConfStudent.self, key: \.studentID)
}

/// A join model whose key to the course has one column: the through association over it does not fit.
@Model(table: "conf_stray_enrollment")
struct ConfStrayEnrollment {
    var id: Int64?
    var term: Int64
    var studentID: Int64
}

extension ConfCourse {
    static let strayStudents = hasMany(
        ConfStudent.self, through: ConfStrayEnrollment.self, ownerKey: \.term, targetKey: \.studentID)
}

extension ConformanceSuite {
    /// Courses (1, A), (1, B), (2, A); Ann in (1, A) and (2, A), Bob in (1, A); nobody in (1, B); Cy in nothing.
    static func seedCourses(_ db: Database) async throws -> (ann: ConfStudent, bob: ConfStudent, cy: ConfStudent) {
        try await db.migrate(ConfCourse.self, ConfStudent.self, ConfEnrollment.self)
        for (term, code, title) in [(1, "A", "Algebra"), (1, "B", "Botany"), (2, "A", "Algebra II")]
            as [(Int64, String, String)]
        {
            var course = ConfCourse(term: term, code: code, title: title)
            try await course.save(on: db)
        }
        var students: [ConfStudent] = []
        for name in ["Ann", "Bob", "Cy"] {
            var s = ConfStudent(name: name)
            try await s.save(on: db)
            students.append(s)
        }
        for (term, code, student) in [(1, "A", 0), (2, "A", 0), (1, "A", 1)] as [(Int64, String, Int)] {
            var e = ConfEnrollment(term: term, courseCode: code, studentID: students[student].id ?? 0)
            try await e.save(on: db)
        }
        return (students[0], students[1], students[2])
    }

    /// Course keys in `(term, code)` order, as `1A`.
    static func courseKeys(_ courses: [ConfCourse]) -> [String] {
        courses.map { "\($0.term)\($0.code)" }.sorted()
    }

    static let compositeKeyThroughCases: [ConformanceCase] = [
        ConformanceCase("composite-key.association-through-loads-both-ways") { db in
            let (ann, _, cy) = try await seedCourses(db)
            let courses = try await ConfCourse.query(on: db).order(\.term).order(\.code).all()
            var names: [[String]] = []
            for course in courses {
                names.append(try await course.fetch(ConfCourse.students, on: db).map(\.name).sorted())
            }
            try checkEqual(names, [["Ann", "Bob"], [], ["Ann"]], "an owner with a composite key: its students")
            try checkEqual(
                courseKeys(try await ann.fetch(ConfStudent.courses, on: db)), ["1A", "2A"],
                "a target with a composite key: both columns match, (1, B) shares a part only")
            try checkEqual(try await cy.fetch(ConfStudent.courses, on: db).count, 0, "a student in no course")
            var before = db.statementCount
            let loaded = try await ConfCourse.query(on: db).order(\.term).order(\.code)
                .including(ConfCourse.students).all()
            try checkEqual(db.statementCount - before, 3, "courses, their enrollments, their students")
            try checkEqual(
                try loaded.map { try $0.loaded(ConfCourse.students).map(\.name).sorted() },
                [["Ann", "Bob"], [], ["Ann"]],
                "eager-loaded from the composite side")
            before = db.statementCount
            let students = try await ConfStudent.query(on: db).order(\.name).including(ConfStudent.courses).all()
            try checkEqual(db.statementCount - before, 3, "students, their enrollments, their courses")
            try checkEqual(
                try students.map { courseKeys(try $0.loaded(ConfStudent.courses)) }, [["1A", "2A"], ["1A"], []],
                "eager-loaded to the composite side")
        },
        ConformanceCase("composite-key.association-through-joins-exists-and-counts") { db in
            _ = try await seedCourses(db)
            try checkEqual(
                courseKeys(try await ConfCourse.query(on: db).whereExists(ConfCourse.students).all()), ["1A", "2A"],
                "whereExists from the composite side")
            try checkEqual(
                courseKeys(try await ConfCourse.query(on: db).whereNotExists(ConfCourse.students).all()), ["1B"],
                "whereNotExists from the composite side")
            try checkEqual(
                courseKeys(try await ConfCourse.query(on: db).whereExists(ConfCourse.students, \.name == "Bob").all()),
                ["1A"], "with a filter on the student")
            try checkEqual(
                try await ConfStudent.query(on: db).whereExists(ConfStudent.courses, \.term == 2).all().map(\.name),
                ["Ann"], "whereExists to the composite side, filtered")
            try checkEqual(
                try await ConfStudent.query(on: db).whereNotExists(ConfStudent.courses).all().map(\.name), ["Cy"],
                "whereNotExists to the composite side")
            let counts = try await ConfCourse.query(on: db).order(\.term).order(\.code)
                .all(with: .count(ConfCourse.students))
            try checkEqual(counts.map { "\($0.0.term)\($0.0.code):\($0.1)" }, ["1A:2", "1B:0", "2A:1"], "counts")
            let pairs = try await ConfStudent.query(on: db).join(ConfStudent.courses).order(\.name)
                .order(ConfStudent.courses, \.term).allJoined(ConfStudent.courses)
            try checkEqual(
                pairs.map { "\($0.0?.name ?? "-")/\($0.1.map { "\($0.term)\($0.code)" } ?? "-")" },
                ["Ann/1A", "Ann/2A", "Bob/1A"], "an inner join through both columns")
        },
        ConformanceCase("composite-key.association-through-add-remove-delete") { db in
            let (_, bob, seededCy) = try await seedCourses(db)
            var cy = seededCy
            guard var botany = try await ConfCourse.find(ConfCourse.ID(term: 1, code: "B"), on: db) else {
                throw ConformanceFailure(description: "the seeded course is missing")
            }
            try await botany.add(&cy, to: ConfCourse.students, on: db)
            try checkEqual(
                try await botany.fetch(ConfCourse.students, on: db).map(\.name), ["Cy"], "add writes both key columns")
            try await cy.remove(botany, from: ConfStudent.courses, on: db)
            try checkEqual(try await cy.fetch(ConfStudent.courses, on: db).count, 0, "remove from the other side")
            try checkEqual(try await ConfEnrollment.query(on: db).count(), 3, "only that join row went")
            guard var algebra = try await ConfCourse.find(ConfCourse.ID(term: 1, code: "A"), on: db) else {
                throw ConformanceFailure(description: "the seeded course is missing")
            }
            try checkEqual(try await algebra.delete(on: db), true, "deleting a course (destroy)")
            try checkEqual(
                try await ConfEnrollment.query(on: db).all().map { "\($0.term)\($0.courseCode)" }, ["2A"],
                "its enrollments went, not those sharing one key column")
            try checkEqual(try await ConfStudent.query(on: db).count(), 3, "the students stay")
            try checkEqual(try await bob.fetch(ConfStudent.courses, on: db).count, 0, "Bob is in nothing now")
        },
        ConformanceCase("composite-key.association-through-key-that-does-not-fit-is-refused") { db in
            try await db.migrate(ConfCourse.self, ConfStudent.self, ConfStrayEnrollment.self)
            var course = ConfCourse(term: 1, code: "A", title: "Algebra")
            try await course.save(on: db)
            let fits: (StrataError) -> Bool = {
                if case .invalidAssociation(let reason) = $0 {
                    // The error names the argument to fix: a through association's is ownerKeys:, not keys:.
                    return reason.contains("ConfStrayEnrollment") && reason.contains("ConfCourse")
                        && reason.contains("declare ownerKeys: with 2 key paths")
                }
                return false
            }
            try await checkThrows("fetch through a one-column key to a two-column one", fits) {
                try await course.fetch(ConfCourse.strayStudents, on: db)
            }
            try await checkThrows("including it", fits) {
                try await ConfCourse.query(on: db).including(ConfCourse.strayStudents).all()
            }
            try await checkThrows("whereExists over it", fits) {
                try await ConfCourse.query(on: db).whereExists(ConfCourse.strayStudents).all()
            }
            var dan = ConfStudent(name: "Dan")
            try await checkThrows("add through it", fits) {
                try await course.add(&dan, to: ConfCourse.strayStudents, on: db)
            }
            try checkEqual(try await ConfStrayEnrollment.query(on: db).count(), 0, "no join row was written")
            try checkEqual(dan.id, nil, "the refused add left the new student unsaved")
            try checkEqual(try await ConfStudent.query(on: db).count(), 0, "and wrote no student row")
        },
    ]
}
