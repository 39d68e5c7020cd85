// DocSQLTests: the SQL shown in the query builder's docs, checked against what the renderer emits per dialect.
import Foundation
import Strata
import StrataMemory
import StrataPostgres
import StrataSQLite
import Synchronization
import Testing

@Model(table: "user") struct DocUser {
    var id: Int64?
    var name: String
    var age: Int64
    static let posts = hasMany(DocPost.self, key: \.userID)
}

@Model(table: "post") struct DocPost {
    var id: Int64?
    var userID: Int64
    var title: String
    var views: Int64 = 0
    static let user = belongsTo(DocUser.self, key: \.userID)
}

@Model(table: "account") struct DocAccount {
    var id: Int64?
    var email: String
    var name: String
    static var indexes: [Index] { [.on(\DocAccount.email, unique: true)] }
}

@Model(table: "label") struct DocLabel {
    var id: String?
    var text: String
}

@Model(table: "order_line", primaryKey: ["orderID", "productID"]) struct DocLine {
    var orderID: Int64
    var productID: Int64
    var quantity: Int64
    static let notes = hasMany(DocLineNote.self, keys: \.orderID, \.productID)
    static let tags = hasMany(
        DocTag.self, through: DocLineTag.self, ownerKeys: \.orderID, \.productID, targetKeys: \.tagID)
}

@Model(table: "tag") struct DocTag {
    var id: Int64?
    var name: String
}

@Model(table: "line_tag") struct DocLineTag {
    var id: Int64?
    var orderID: Int64
    var productID: Int64
    var tagID: Int64
}

@Model(table: "line_note") struct DocLineNote {
    var id: Int64?
    var orderID: Int64
    var productID: Int64
    var text: String
    static let line = belongsTo(DocLine.self, keys: \.orderID, \.productID)
}

/// The data statements a database ran, in order.
final class StatementLog: Sendable {
    private let statements = Mutex<[Statement]>([])
    func append(_ s: Statement) { statements.withLock { $0.append(s) } }
    func take() -> [Statement] {
        statements.withLock { s in
            defer { s = [] }; return s
        }
    }
}

/// A memory connection that logs every SELECT, INSERT, UPDATE and DELETE it runs.
final class LoggingConnection: DatabaseConnection {
    let base: any DatabaseConnection
    let log: StatementLog
    init(base: any DatabaseConnection, log: StatementLog) {
        self.base = base
        self.log = log
    }
    func execute(_ statement: Statement, onRow: (any RowReader) throws -> Void) throws -> Int {
        switch statement {
        case .select, .insert, .update, .delete: log.append(statement)
        default: break
        }
        return try base.execute(statement, onRow: onRow)
    }
    func executeRaw(_ sql: String, _ binds: [DatabaseValue], onRow: (any RowReader) throws -> Void) throws -> Int {
        try base.executeRaw(sql, binds, onRow: onRow)
    }
    func columns(of table: String) throws -> [String]? { try base.columns(of: table) }
    var isBroken: Bool { base.isBroken }
    var maxBindParameters: Int { base.maxBindParameters }
    var maxInListValues: Int { base.maxInListValues }
    func liveColumns(of table: String) throws -> [LiveColumn]? { try base.liveColumns(of: table) }
    func liveTables() throws -> [String] { try base.liveTables() }
    func liveForeignKeys(of table: String) throws -> [LiveForeignKey] { try base.liveForeignKeys(of: table) }
}

struct LoggingDriver: Driver {
    let base = MemoryDriver()
    let log = StatementLog()
    var name: String { "memory" }
    var maxConnections: Int { 1 }
    func connect() throws -> any DatabaseConnection { LoggingConnection(base: try base.connect(), log: log) }
}

/// One documented query: the file whose docs show its SQL, and the query itself.
struct DocQuery: Sendable, CustomTestStringConvertible {
    let name: String
    let file: String
    /// Rows the query needs beyond the shared seed, written before the log is read.
    var setup: (@Sendable (Database) async throws -> Void)? = nil
    let run: @Sendable (Database) async throws -> Void
    var testDescription: String { name }

    static let all: [DocQuery] = [
        DocQuery(name: "where", file: "Sources/Strata/Query/QueryBuilder.swift") { db in
            _ = try await DocUser.query(on: db).where(\.name == "Ann" && \.age > 30).all()
        },
        DocQuery(name: "where in", file: "Sources/Strata/Query/QueryBuilder.swift") { db in
            _ = try await DocUser.query(on: db).where(\.id, in: [1, 2, 3]).all()
        },
        DocQuery(name: "where like", file: "Sources/Strata/Query/QueryBuilder.swift") { db in
            _ = try await DocUser.query(on: db).where(\.name, like: "an%", caseInsensitive: true).all()
        },
        DocQuery(name: "filter id", file: "Sources/Strata/Query/QueryBuilder.swift") { db in
            _ = try await DocUser.query(on: db).filter(id: 1).first()
        },
        DocQuery(name: "order limit offset", file: "Sources/Strata/Query/QueryBuilder.swift") { db in
            _ = try await DocUser.query(on: db).order(\.name).order(\.age, .descending).limit(10).offset(20).all()
        },
        DocQuery(name: "including", file: "Sources/Strata/Query/QueryBuilder.swift") { db in
            _ = try await DocUser.query(on: db).including(DocUser.posts).all()
        },
        DocQuery(name: "count", file: "Sources/Strata/Query/QueryBuilder+Run.swift") { db in
            _ = try await DocUser.query(on: db).where(\.age >= 18).count()
        },
        DocQuery(name: "exists", file: "Sources/Strata/Query/QueryBuilder+Run.swift") { db in
            _ = try await DocUser.query(on: db).where(\.name == "Ann").exists()
        },
        DocQuery(name: "update", file: "Sources/Strata/Query/QueryBuilder+Run.swift") { db in
            _ = try await DocPost.query(on: db).where(\.userID == 1).set(\.title, to: "Hidden").update()
        },
        DocQuery(name: "delete", file: "Sources/Strata/Query/QueryBuilder+Run.swift") { db in
            _ = try await DocPost.query(on: db).where(\.views == 0).delete()
        },
        DocQuery(name: "join", file: "Sources/Strata/Query/QueryBuilder+Join.swift") { db in
            _ = try await DocPost.query(on: db).join(DocPost.user).where(DocPost.user, \.name == "Ann").all()
        },
        DocQuery(name: "sum", file: "Sources/Strata/Query/QueryBuilder+Aggregate.swift") { db in
            _ = try await DocPost.query(on: db).where(\.userID == 1).sum(\.views)
        },
        DocQuery(name: "count distinct", file: "Sources/Strata/Query/QueryBuilder+Aggregate.swift") { db in
            _ = try await DocPost.query(on: db).count(distinct: \.userID)
        },
        DocQuery(name: "select tuples", file: "Sources/Strata/Query/QueryBuilder+Aggregate.swift") { db in
            _ = try await DocPost.query(on: db).group(by: \.userID).select(.column(\.userID), .sum(\.views), .count())
        },
        DocQuery(name: "group having", file: "Sources/Strata/Query/QueryBuilder+Group.swift") { db in
            _ = try await DocPost.query(on: db).group(by: \.userID).having(.count() >= 2)
                .order(.sum(\.views), .descending).select(.column(\.userID), .sum(\.views))
        },
        DocQuery(name: "distinct", file: "Sources/Strata/Query/QueryBuilder+Group.swift") { db in
            _ = try await DocUser.query(on: db).distinct().values(\.name)
        },
        DocQuery(name: "computed update", file: "Sources/Strata/Query/QueryBuilder+Expressions.swift") { db in
            _ = try await DocPost.query(on: db).where(\.id == 1).update(set: \.views, to: \.views + 1)
        },
        DocQuery(name: "subquery in", file: "Sources/Strata/Query/Subquery.swift") { db in
            let popular = DocPost.query(on: db).where(\.views > 100).select(\.userID)
            _ = try await DocUser.query(on: db).where(\.id, in: popular).all()
        },
        DocQuery(name: "where exists", file: "Sources/Strata/Association/Association+Existence.swift") { db in
            _ = try await DocUser.query(on: db).whereExists(DocUser.posts, \.views > 100).all()
        },
        DocQuery(name: "where exists composite", file: "Sources/Strata/Association/Association+Existence.swift") { db in
            _ = try await DocLine.query(on: db).whereExists(DocLine.notes, \.text == "rush").all()
        },
        DocQuery(name: "through composite", file: "Sources/Strata/Association/HasManyThrough.swift") { db in
            _ = try await DocLine.query(on: db).whereExists(DocLine.tags, \.name == "gift").all()
        },
        DocQuery(
            name: "keyset page", file: "Sources/Strata/Query/QueryBuilder+Page.swift",
            setup: { db in
                var bob = DocUser(name: "Bob", age: 30)
                try await bob.save(on: db)
            }
        ) { db in
            let first = try await DocUser.query(on: db).order(\.name).order(\.id).page(after: nil, limit: 1)
            _ = try await DocUser.query(on: db).order(\.name).order(\.id).page(after: first.nextCursor, limit: 1)
        },
        DocQuery(name: "numbered page", file: "Sources/Strata/Query/QueryBuilder+Page.swift") { db in
            _ = try await DocPost.query(on: db).where(\.views > 0).order(\.id).page(number: 1, size: 20)
        },
        DocQuery(name: "tagged", file: "Sources/Strata/Query/QueryTag.swift") { db in
            _ = try await DocPost.query(on: db).tagged("feed.recent").order(\.id, .descending).limit(20).all()
        },
        DocQuery(name: "upsert", file: "Sources/Strata/Model/Model+Upsert.swift") { db in
            var account = DocAccount(email: "ann@example.com", name: "Ann")
            try await account.upsert(on: db, onConflict: \.email, do: .update(\.name))
        },
        DocQuery(name: "upsert own key", file: "Sources/Strata/Model/Model+Upsert.swift") { db in
            var label = DocLabel(id: "greeting", text: "Hello")
            try await label.upsert(on: db, onConflict: \.id)
        },
        DocQuery(name: "association aggregates", file: "Sources/Strata/Association/AssociationAggregate.swift") { db in
            _ = try await DocUser.query(on: db)
                .having(.count(DocUser.posts) > 2)
                .order(.sum(DocUser.posts, of: \.views), .descending)
                .all(with: .count(DocUser.posts), .sum(DocUser.posts, of: \.views))
        },
        DocQuery(name: "prepared", file: "Sources/Strata/Query/PreparedQuery.swift") { db in
            let author = QueryParameter<Int64>("author")
            let least = QueryParameter<Int64>("least")
            try await db.transaction { tx in
                let popular = try DocPost.query(on: tx)
                    .where(\.userID == author && \.views >= least)
                    .order(\.views, .descending).limit(20)
                    .prepared()
                _ = try popular.binding(author, to: 7).binding(least, to: 100).all()
            }
        },
    ]
}

@Suite("SQL shown in the query builder's docs")
struct DocSQLTests {
    /// The package's root, three levels above this file.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// A source file's doc comment text: each `///` line without its marker, other lines dropped.
    static func docText(_ file: String) throws -> String {
        let source = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
        return source.split(separator: "\n", omittingEmptySubsequences: false).compactMap { line in
            let trimmed = line.drop { $0 == " " }
            guard trimmed.hasPrefix("///") else { return nil }
            let text = trimmed.dropFirst(3)
            return String(text.hasPrefix(" ") ? text.dropFirst() : text)
        }.joined(separator: "\n")
    }

    @Test("each documented query's SQL block matches the SQLite and PostgreSQL renderers", arguments: DocQuery.all)
    func documentedSQL(_ query: DocQuery) async throws {
        let driver = LoggingDriver()
        let db = Database(driver: driver)
        try await db.migrate(
            DocUser.self, DocPost.self, DocAccount.self, DocLabel.self, DocLine.self, DocLineNote.self,
            DocTag.self, DocLineTag.self)
        try await db.transaction { tx in
            var ann = DocUser(name: "Ann", age: 40)
            try ann.save(tx)
            var post = DocPost(userID: ann.id ?? 0, title: "Hello", views: 120)
            try post.save(tx)
        }
        try await query.setup?(db)
        _ = driver.log.take()
        try await query.run(db)
        let statements = driver.log.take()
        #expect(!statements.isEmpty)
        let sqlite = try statements.map { try SQLRenderer.render($0, dialect: SQLiteDialect()).sql }
        let postgres = try statements.map { try SQLRenderer.render($0, dialect: PostgresDialect()).sql }
        let block = (["```sql", "-- SQLite"] + sqlite + ["-- PostgreSQL"] + postgres + ["```"]).joined(separator: "\n")
        if let dir = ProcessInfo.processInfo.environment["STRATA_DOC_SQL_DIR"] {  // to regenerate the docs' blocks
            try block.write(toFile: dir + "/" + query.name + ".sql", atomically: true, encoding: .utf8)
        }
        let docs = try Self.docText(query.file)
        #expect(docs.contains(block), "\(query.file) should show, for \(query.name):\n\(block)")
    }
}
