// BenchOptions: the command line of strata-mariadb-bench.

/// What to run, parsed from the command line.
public struct BenchOptions: Sendable {
    /// The server (`mariadb://user:password@host:port`, no database), or nil to start a throwaway one on ``port``.
    public var url: String?
    /// The loopback port of the throwaway server (3319: the tests use 3316 and up, the Galera tests 3340-3342).
    public var port = 3319
    /// Timed runs of each side per workload (after one warm-up run each); the median is reported.
    public var iterations = 5
    /// The full-size counts are divided by this.
    public var scale = 1
    /// Where to write the results as JSON, if anywhere.
    public var json: String?
    /// The workloads to run (all by default).
    public var workloads = MariaDBWorkload.allCases
    /// One side only (`strata` or `raw`), for a profiler (`valgrind --tool=callgrind`): nothing is compared.
    public var side: String?
    /// The database the bench creates (dropped first) and drops at the end.
    public var database = "strata_bench"

    public init() {}

    public static let usage = """
        usage: strata-mariadb-bench [--url mariadb://user@host:port] [--port N] [--iterations K] [--scale S]
                                    [--json FILE] [--only insert,bulk,fetch,lookup-tx,query,upsert] [--side strata|raw]
        Runs each workload through Strata (mariadb://) and through raw libmariadb in the same process, against a
        MariaDB server started on 127.0.0.1:3319 (or --url's), and prints both medians, Strata / raw, and the
        checksums (a mismatch fails the run).
        """

    /// Parses `arguments` (without the program's name).
    public init(arguments: [String]) throws {
        var i = 0
        func value() throws -> String {
            i += 1
            guard i < arguments.count else { throw RawMariaDBError(description: "\(arguments[i - 1]) needs a value") }
            return arguments[i]
        }
        func number() throws -> Int {
            let text = try value()
            guard let n = Int(text), n > 0 else { throw RawMariaDBError(description: "not a positive count: \(text)") }
            return n
        }
        while i < arguments.count {
            switch arguments[i] {
            case "--url": url = try value()
            case "--port": port = try number()
            case "--iterations": iterations = try number()
            case "--scale": scale = try number()
            case "--json": json = try value()
            case "--side":
                side = try value()
                guard side == "strata" || side == "raw" else { throw RawMariaDBError(description: "--side strata|raw") }
            case "--only":
                workloads = try value().split(separator: ",").map { name in
                    guard let w = MariaDBWorkload(rawValue: String(name)) else {
                        throw RawMariaDBError(description: "no workload \(name)")
                    }
                    return w
                }
            default: throw RawMariaDBError(description: "unknown argument \(arguments[i])\n\(Self.usage)")
            }
            i += 1
        }
        if let u = url, u.hasSuffix("/") { url = String(u.dropLast()) }
    }
}

/// The core workloads of the root bench, on MariaDB.
public enum MariaDBWorkload: String, CaseIterable, Sendable, Codable {
    case insert
    case bulk
    case fetch
    case lookupTx = "lookup-tx"
    case query
    case upsert

    /// What it does, with the counts actually run.
    func label(_ s: Sizes) -> String {
        switch self {
        case .insert: return "insert \(s.insert) one by one in a tx"
        case .bulk: return "bulk insert \(s.bulk) (insertAll / multi-row INSERT)"
        case .fetch: return "fetch \(s.fetch) rows"
        case .lookupTx: return "\(s.lookups) lookups by id in a tx"
        case .query: return "\(s.queries) filtered queries (i1 > ? order by d1 limit \(s.queryLimit))"
        case .upsert: return "upsert \(s.upsert) on a unique key (half stored)"
        }
    }
}

/// The counts behind the workloads, the root bench's divided by the scale (never below 1).
struct Sizes: Codable {
    var insert: Int
    var bulk: Int
    var fetch: Int
    var lookups: Int
    var queries: Int
    var queryLimit = 100
    var upsert: Int

    init(scale: Int) {
        let s = max(1, scale)
        insert = max(1, 20_000 / s)
        bulk = max(1, 100_000 / s)
        fetch = max(1, 100_000 / s)
        lookups = max(1, 5_000 / s)
        queries = max(1, 1_000 / s)
        upsert = max(2, 20_000 / s)
    }
}
