// RawMariaDB: the least a hand-written libmariadb client does: a connection, prepared statements, MYSQL_BINDs.
import CMariaDB
import Foundation

/// A failure of the raw side, with libmariadb's message.
public struct RawMariaDBError: Error, CustomStringConvertible {
    public let description: String
}

/// One libmariadb connection, set up as the driver sets up its sessions (same character set, collation and
/// `sql_mode`), so that both sides ask the server for the same work.
final class RawConnection {
    let handle: UnsafeMutablePointer<MYSQL>
    private var statements: [String: RawStatement] = [:]

    init(host: String, port: Int, user: String?, password: String?, database: String?) throws {
        guard mysql_server_init(0, nil, nil) == 0, let h = mysql_init(nil) else {
            throw RawMariaDBError(description: "cannot initialise libmariadb")
        }
        handle = h
        mysql_options(h, MYSQL_SET_CHARSET_NAME, "utf8mb4")
        let flags = UInt(CLIENT_FOUND_ROWS)
        guard mysql_real_connect(h, host, user, password, database, UInt32(port), nil, flags) != nil else {
            let message = String(cString: mysql_error(h))
            mysql_close(h)
            throw RawMariaDBError(description: "cannot connect to \(host):\(port): \(message)")
        }
        try exec(
            "SET NAMES utf8mb4 COLLATE utf8mb4_nopad_bin, time_zone = '+00:00', "
                + "sql_mode = 'STRICT_ALL_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION,"
                + "NO_ZERO_DATE,NO_ZERO_IN_DATE,NO_AUTO_VALUE_ON_ZERO,"
                + "ANSI_QUOTES,PIPES_AS_CONCAT,NO_BACKSLASH_ESCAPES,SIMULTANEOUS_ASSIGNMENT'")
    }

    deinit {
        statements.removeAll()
        mysql_close(handle)
    }

    /// Runs `sql` over the text protocol, discarding any result (BEGIN, COMMIT, TRUNCATE).
    func exec(_ sql: String) throws {
        if mysql_real_query(handle, sql, UInt(sql.utf8.count)) != 0 {
            throw RawMariaDBError(description: "\(sql.prefix(80)): \(String(cString: mysql_error(handle)))")
        }
        repeat {
            if let result = mysql_store_result(handle) { mysql_free_result(result) }
        } while mysql_next_result(handle) == 0
    }

    /// The statement for `sql`, prepared the first time it is asked for and kept (as the driver caches its own).
    func statement(_ sql: String, params: [RawBinds.Kind], results: [RawBinds.Kind] = []) throws -> RawStatement {
        if let stmt = statements[sql] { return stmt }
        let stmt = try RawStatement(handle, sql, params: params, results: results)
        statements[sql] = stmt
        return stmt
    }
}

/// A prepared statement with its parameters and its result columns bound once, to buffers it owns: each
/// execution writes the values into them (``RawBinds``), executes, and reads the rows out of them.
final class RawStatement {
    let stmt: UnsafeMutablePointer<MYSQL_STMT>
    let params: RawBinds
    let results: RawBinds

    init(_ handle: UnsafeMutablePointer<MYSQL>, _ sql: String, params: [RawBinds.Kind], results: [RawBinds.Kind])
        throws
    {
        guard let stmt = mysql_stmt_init(handle) else {
            throw RawMariaDBError(description: String(cString: mysql_error(handle)))
        }
        self.stmt = stmt
        self.params = RawBinds(params)
        self.results = RawBinds(results)
        if mysql_stmt_prepare(stmt, sql, UInt(sql.utf8.count)) != 0 { throw failure("prepare \(sql.prefix(80))") }
        if !params.isEmpty, mysql_stmt_bind_param(stmt, self.params.binds) != 0 { throw failure("bind") }
        // An INSERT … RETURNING has no result metadata before its first execution: its columns are bound then.
        if !results.isEmpty, mysql_stmt_field_count(stmt) > 0 { try bindResults() }
    }

    private var resultsBound = false

    private func bindResults() throws {
        if mysql_stmt_bind_result(stmt, results.binds) != 0 { throw failure("bind result") }
        resultsBound = true
    }

    deinit { mysql_stmt_close(stmt) }

    func failure(_ what: String) -> RawMariaDBError {
        RawMariaDBError(description: "\(what): \(String(cString: mysql_stmt_error(stmt)))")
    }

    /// Executes with the values now in ``params``.
    @inline(__always)
    func execute() throws {
        if mysql_stmt_execute(stmt) != 0 { throw failure("execute") }
    }

    /// Reads the result row by row (unbuffered, straight off the socket), each one left in ``results``.
    @inline(__always)
    func forEachRow(_ body: (RawBinds) -> Void) throws {
        if !resultsBound { try bindResults() }
        while true {
            let rc = mysql_stmt_fetch(stmt)
            if rc == MYSQL_NO_DATA { return }
            if rc != 0 { throw failure("fetch (\(rc))") }
            body(results)
        }
    }

    /// The AUTO_INCREMENT value the last INSERT generated (its first row's).
    var insertID: Int64 { Int64(bitPattern: mysql_stmt_insert_id(stmt)) }
}

/// A fixed set of MYSQL_BINDs and the buffers behind them: 8 bytes for an integer or a double, `capacity` bytes for
/// a text (the bench's texts are short).
final class RawBinds {
    enum Kind {
        case integer
        case double
        case text(capacity: Int)
    }

    let binds: UnsafeMutablePointer<MYSQL_BIND>
    private let count: Int
    private let lengths: UnsafeMutablePointer<UInt>
    private let nulls: UnsafeMutablePointer<my_bool>
    private var buffers: [UnsafeMutableRawPointer] = []

    init(_ kinds: [Kind]) {
        count = kinds.count
        binds = .allocate(capacity: max(count, 1))
        lengths = .allocate(capacity: max(count, 1))
        lengths.initialize(repeating: 0, count: max(count, 1))
        nulls = .allocate(capacity: max(count, 1))
        nulls.initialize(repeating: 0, count: max(count, 1))
        for (i, kind) in kinds.enumerated() {
            var b = MYSQL_BIND()
            let size: Int
            switch kind {
            case .integer:
                size = 8
                b.buffer_type = MYSQL_TYPE_LONGLONG
            case .double:
                size = 8
                b.buffer_type = MYSQL_TYPE_DOUBLE
            case .text(let capacity):
                size = capacity
                b.buffer_type = MYSQL_TYPE_STRING
            }
            let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 8)
            buffers.append(buffer)
            b.buffer = buffer
            b.buffer_length = UInt(size)
            b.length = lengths + i
            b.is_null = nulls + i
            (binds + i).initialize(to: b)
        }
    }

    deinit {
        binds.deinitialize(count: max(count, 1))
        binds.deallocate()
        lengths.deallocate()
        nulls.deallocate()
        for buffer in buffers { buffer.deallocate() }
    }

    @inline(__always)
    func set(_ i: Int, _ v: Int64) { buffers[i].storeBytes(of: v, as: Int64.self) }

    @inline(__always)
    func set(_ i: Int, _ v: Double) { buffers[i].storeBytes(of: v, as: Double.self) }

    @inline(__always)
    func set(_ i: Int, _ s: String) {
        var s = s
        s.withUTF8 { bytes in
            let n = min(bytes.count, Int(binds[i].buffer_length))
            if let base = bytes.baseAddress { buffers[i].copyMemory(from: base, byteCount: n) }
            lengths[i] = UInt(n)
        }
    }

    @inline(__always)
    func int64(_ i: Int) -> Int64 { buffers[i].load(as: Int64.self) }

    @inline(__always)
    func double(_ i: Int) -> Double { buffers[i].load(as: Double.self) }

    @inline(__always)
    func string(_ i: Int) -> String {
        String(decoding: UnsafeRawBufferPointer(start: buffers[i], count: Int(lengths[i])), as: UTF8.self)
    }
}
