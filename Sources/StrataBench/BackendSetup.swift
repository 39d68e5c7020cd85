// BackendSetup: opens the two sides compared on a backend, with its fresh table, and tears them down.
import Foundation
import Strata
import StrataMemory
import StrataPostgres
import StrataSQLite

/// The two sides measured on one backend.
struct ContenderPair {
    let strata: Contender
    let baseline: Contender
    /// Whether both sides see one table (SQLite file, PostgreSQL): then the baseline seeds and resets it
    /// for both, fast; otherwise each side keeps its own store and prepares it itself.
    let sharedStore: Bool
    /// Facts worth printing (versions, paths).
    let notes: [String]
    let title: String
    let tearDown: () async -> Void

    /// The side that empties and fills the table `side` reads.
    func fixture(for side: Contender) -> Contender { sharedStore ? baseline : side }
}

enum BackendSetup {
    /// Opens the pair for `backend`; throws ``BenchError`` with the reason to skip it (no server, …).
    static func open(_ backend: Backend, options: BenchOptions) async throws -> ContenderPair {
        switch backend {
        case .sqlite: return try await sqlite(options)
        case .memory: return try await memory(options)
        case .postgres: return try await postgres(options)
        }
    }

    private static func sqlite(_ options: BenchOptions) async throws -> ContenderPair {
        let fm = FileManager.default
        let dir: String
        let ownsDirectory = options.directory == nil
        if let d = options.directory {
            dir = d
        } else {
            dir = fm.temporaryDirectory.appendingPathComponent("strata-bench-\(getpid())").path
        }
        try fm.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let path = (dir as NSString).appendingPathComponent("strata-bench.sqlite")
        let files = [path, path + "-wal", path + "-shm"]
        for f in files { try? fm.removeItem(atPath: f) }
        let db = try Database.open("sqlite:" + path, drivers: [.sqlite], configuration: options.configuration())
        try await db.migrate(BenchRecord.self, BenchKeyed.self)
        let raw = try SQLiteRawContender(path: path)
        return ContenderPair(
            strata: StrataContender(db: db), baseline: raw, sharedStore: true,
            notes: ["libsqlite3 \(SQLiteDriver.libraryVersion), file \(path), WAL, synchronous = NORMAL"],
            title: "SQLite (file, WAL)"
        ) {
            db.close()
            for f in files { try? fm.removeItem(atPath: f) }
            if ownsDirectory { try? fm.removeItem(atPath: dir) }
        }
    }

    private static func memory(_ options: BenchOptions) async throws -> ContenderPair {
        let db = try Database.open("memory:", drivers: [.memory], configuration: options.configuration())
        let sqlite = try Database.open("sqlite::memory:", drivers: [.sqlite])
        try await db.migrate(BenchRecord.self, BenchKeyed.self)
        try await sqlite.migrate(BenchRecord.self, BenchKeyed.self)
        let configuration = options.configuration()
        return ContenderPair(
            strata: StrataContender(
                db: db, fresh: { try Database.open("memory:", drivers: [.memory], configuration: configuration) }),
            baseline: StrataContender(
                name: "Strata on sqlite::memory:", db: sqlite,
                fresh: { try Database.open("sqlite::memory:", drivers: [.sqlite]) }),
            sharedStore: false,
            notes: [
                "both sides run Strata; the baseline is SQLite's in-memory database (libsqlite3 \(SQLiteDriver.libraryVersion))"
            ],
            title: "memory driver"
        ) {
            db.close()
            sqlite.close()
        }
    }

    private static func postgres(_ options: BenchOptions) async throws -> ContenderPair {
        let db: Database
        do {
            db = try Database.open(options.postgresURL, drivers: [.postgres], configuration: options.configuration())
            try await db.dropTables(BenchRecord.self, BenchKeyed.self)
            try await db.migrate(BenchRecord.self, BenchKeyed.self)
        } catch {
            let shown = DatabaseURL.redacting(options.postgresURL)
            throw BenchError("no PostgreSQL server at \(shown) (\(error))")
        }
        let raw = try PostgresRawContender(url: options.postgresURL)
        let server = try raw.serverVersion()
        return ContenderPair(
            strata: StrataContender(db: db), baseline: raw, sharedStore: true,
            notes: ["libpq \(PostgresDriver.libraryVersion), server \(server)"],
            title: "PostgreSQL"
        ) {
            try? await db.dropTables(BenchRecord.self, BenchKeyed.self)
            db.close()
        }
    }
}
