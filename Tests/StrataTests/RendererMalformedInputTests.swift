// RendererMalformedInputTests: renderer inputs the fuzzer (Tests/Fuzz, FuzzRender) found mis-rendered.
import Testing

@testable import Strata

/// PostgreSQL's `$n` placeholders, where a digit after a placeholder changes which parameter it names.
struct DollarDialect: Dialect {
    var name: String { "dollar" }
    func placeholder(_ index: Int) -> String { "$\(index)" }
    var offsetWithoutLimit: OffsetWithoutLimit { .offsetAlone }
    var caseInsensitiveLike: CaseInsensitiveLike { .ilike }
    func sqlType(_ type: ColumnType) -> String { "ANY" }
    var autoIncrementPrimaryKey: String { "SERIAL" }
}

@Suite("SQL renderer: malformed input")
struct RendererMalformedInputTests {
    @Test("a raw ? followed by a digit stays its own placeholder ($1 1, not $11)")
    func placeholderBeforeDigit() throws {
        let r = try SQLRenderer.renderRaw("a = ?1 OR b = ?", [.integer(5), .integer(6)], dialect: DollarDialect())
        #expect(r.sql == "a = $1 1 OR b = $2")
        #expect(r.binds == [.integer(5), .integer(6)])
    }

    @Test("on SQLite a raw ?2 is not the numbered parameter ?2")
    func questionMarkBeforeDigit() throws {
        let r = try SQLRenderer.renderRaw("x = ? OR y = ?2", [.integer(1), .integer(2)], dialect: SQLiteLikeDialect())
        #expect(r.sql == "x = ? OR y = ? 2")
    }

    @Test("a raw ? after a word is not glued into an identifier (x$1)")
    func placeholderAfterWord() throws {
        let r = try SQLRenderer.renderRaw("x?+?_y", [.integer(1), .integer(2)], dialect: DollarDialect())
        #expect(r.sql == "x $1+$2 _y")
    }

    @Test("raw placeholders with nothing word-like beside them render as before")
    func placeholdersUnchanged() throws {
        let r = try SQLRenderer.renderRaw("(a = ?) AND b IN (?,?)", [.null, .null, .null], dialect: DollarDialect())
        #expect(r.sql == "(a = $1) AND b IN ($2,$3)")
    }

    @Test("an INSERT without columns whose row has values is refused by the core, not rendered as DEFAULT VALUES")
    func insertWithoutColumnsButValues() {
        let insert = Statement.insert(Insert(table: "t", columns: [], rows: [[.integer(1)]]))
        #expect(throws: StrataError.invalidQuery("INSERT row has 1 values for 0 columns")) {
            try StatementCheck.check(insert)
        }
        let empty = Statement.insert(Insert(table: "t", columns: [], rows: [[]]))
        #expect((try? SQLRenderer.render(empty, dialect: DollarDialect()).sql) == "INSERT INTO \"t\" DEFAULT VALUES")
    }
}
