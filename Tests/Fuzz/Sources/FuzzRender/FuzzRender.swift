// FuzzRender: libFuzzer target for SQLRenderer with the SQLite and PostgreSQL dialects.
import Foundation
import FuzzSupport
import Strata
import StrataPostgres
import StrataSQLite

/// Every keyword the renderer and the two dialects may write, plus the word raw fragments use (`x`).
private let knownWords: Set<String> = [
    "SELECT", "FROM", "WHERE", "AND", "OR", "NOT", "IS", "NULL", "IN", "LIKE", "ILIKE", "ESCAPE", "BETWEEN",
    "ORDER", "BY", "ASC", "DESC", "NULLS", "FIRST", "LAST", "LIMIT", "OFFSET", "INSERT", "INTO", "VALUES",
    "DEFAULT", "RETURNING", "UPDATE", "SET", "DELETE", "CREATE", "TABLE", "IF", "EXISTS", "INDEX", "UNIQUE",
    "ON", "ALTER", "ADD", "COLUMN", "DROP", "BEGIN", "IMMEDIATE", "COMMIT", "ROLLBACK", "TO", "SAVEPOINT",
    "RELEASE", "PRIMARY", "KEY", "INTEGER", "REAL", "TEXT", "BLOB", "BIGINT", "GENERATED", "AS", "IDENTITY",
    "DOUBLE", "PRECISION", "BOOLEAN", "TIMESTAMPTZ", "NUMERIC", "UUID", "JSONB", "BYTEA", "COLLATE", "STRICT",
    "CHECK", "FOREIGN", "REFERENCES", "CASCADE", "RESTRICT", "NO", "ACTION", "JOIN", "INNER", "LEFT", "RIGHT",
    "FULL", "COUNT", "TRUE", "FALSE", "lower", "x",
]

/// Renders one generated statement with each dialect and checks the output.
public func fuzzRender(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var generator = StatementGenerator(FuzzInput(data, size))
    let statement = generator.statement()
    // The renderer's input is what the core's check lets through (every Transaction runs it before any driver).
    do {
        try StatementCheck.check(statement)
    } catch {
        _ = error.description
        return 0
    }
    for dialect in [SQLiteDialect() as any Dialect, PostgresDialect()] {
        let rendered: RenderedSQL
        do {
            rendered = try SQLRenderer.render(statement, dialect: dialect)
        } catch {
            _ = error.description
            continue
        }
        check(rendered, of: statement, names: generator.names, dialect: dialect)
    }
    return 0
}

private func check(_ rendered: RenderedSQL, of statement: Statement, names: [String], dialect: any Dialect) {
    let sql = rendered.sql
    func fail(_ why: String) -> Never {
        fuzzFailure("\(dialect.name): \(why)\nSQL: \(sql.debugDescription)\nstatement: \(statement)")
    }
    if sql.unicodeScalars.contains("\0") { fail("NUL in SQL text") }
    let scanned: ScannedSQL
    do { scanned = try scan(sql) } catch { fail("\(error)") }
    // Raw fragments write `x` and digits; any other word is a keyword, or an identifier that escaped its quotes.
    for word in scanned.words where !knownWords.contains(word) && !word.allSatisfy({ $0 == "x" || $0.isNumber }) {
        fail("bare word \(word.debugDescription)")
    }
    // Every quoted identifier is one the statement named (or a name the renderer derives from them).
    var allowed = Set(names).union(["strata_count", "strata_decimal", "C"])
    if case .createIndex(let table, let index) = statement {
        allowed.insert(dialect.shortened(index.resolvedName(table: table)))
    }
    for identifier in scanned.identifiers where !allowed.contains(identifier) {
        fail("identifier \(identifier.debugDescription) is not one the statement named")
    }
    // String literals: only the LIKE escape and DDL defaults.
    let defaults = ddlTexts(statement)
    for literal in scanned.literals where literal != "\\" && !defaults.contains(literal) {
        fail("literal \(literal.debugDescription) is not a default of the statement")
    }
    // Placeholders match binds one for one, and the template path binds the same values.
    if dialect is SQLiteDialect {
        if scanned.questionMarks != rendered.binds.count || !scanned.dollarNumbers.isEmpty {
            fail("\(scanned.questionMarks) ? for \(rendered.binds.count) binds")
        }
    } else if scanned.dollarNumbers != Array(stride(from: 1, through: rendered.binds.count, by: 1))
        || scanned.questionMarks != 0
    {
        fail("placeholders \(scanned.dollarNumbers) for \(rendered.binds.count) binds")
    }
    let template = SQLRenderer.binds(of: statement, dialect: dialect)
    guard template.count == rendered.binds.count,
        zip(template, rendered.binds).allSatisfy({ same($0, $1) })
    else {
        fail("binds(of:) \(template.map(\.summary)) differ from render's \(rendered.binds.map(\.summary))")
    }
}

/// The texts a DDL statement may quote as default literals.
private func ddlTexts(_ statement: Statement) -> Set<String> {
    var columns: [TableColumn] = []
    if case .createTable(let t) = statement { columns = t.columns }
    if case .addColumn(_, let c) = statement { columns = [c] }
    var out: Set<String> = []
    for c in columns {
        for v in [c.schemaDefault, c.backfill].compactMap({ $0 }) {
            switch v {
            case .text(let s), .json(let s): out.insert(s)
            case .decimal(let d): out.insert("\(d)")
            case .uuid(let u): out.insert(u.uuidString.lowercased())
            case .date(let d): out.insert(DateText.format(d))
            default: break
            }
        }
    }
    return out
}

/// Equality that treats NaN as equal to itself (binds are copied, never computed).
private func same(_ a: DatabaseValue, _ b: DatabaseValue) -> Bool {
    if case .double(let x) = a, case .double(let y) = b { return x.bitPattern == y.bitPattern }
    return a == b
}
