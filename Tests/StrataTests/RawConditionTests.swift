// RawConditionTests: the raw-condition parser reads the common SQL subset into the AST and names what it cannot.
import Testing

@testable import Strata

@Suite("Raw condition parser")
struct RawConditionTests {
    typealias Node = SQLExpression.Node

    @Test("comparisons, AND/OR/NOT precedence, parentheses and binds")
    func precedence() throws {
        let node = try RawCondition.parse(
            "last_name = ? AND NOT (age > ? OR \"Age\" IS NULL) OR x <> 1", [.text("Li"), .integer(30)])
        let expected: Node = .or([
            .and([
                .compare(.equal, .column("last_name"), .value(.text("Li"))),
                .not(
                    .or([
                        .compare(.greater, .column("age"), .value(.integer(30))),
                        .isNull(.column("Age"), negated: false),
                    ])),
            ]),
            .compare(.notEqual, .column("x"), .value(.integer(1))),
        ])
        #expect(node == expected)
    }

    @Test("IN, LIKE with ESCAPE, BETWEEN, IS NOT NULL, literals and a qualified column")
    func forms() throws {
        #expect(
            try RawCondition.parse("a NOT IN (1, -2.5, 'x''y', NULL, ?)", [.bool(true)])
                == .inList(.column("a"), [.integer(1), .double(-2.5), .text("x'y"), .null, .bool(true)], negated: true))
        #expect(
            try RawCondition.parse("name like ? escape '\\'", [.text("a\\_%")])
                == .like(.column("name"), pattern: "a\\_%", caseInsensitive: false, negated: false))
        #expect(
            try RawCondition.parse("n NOT BETWEEN 1e2 AND ?", [.integer(5)])
                == .between(.column("n"), low: .value(.double(100)), high: .value(.integer(5)), negated: true))
        #expect(
            try RawCondition.parse("j1.\"Name\" IS NOT NULL", [])
                == .isNull(.joinedColumn(table: "j1", name: "Name"), negated: true))
        #expect(try RawCondition.parse("ACTIVE", []) == .column("active"))
        #expect(try RawCondition.parse("flag = TRUE", []) == .compare(.equal, .column("flag"), .value(.bool(true))))
        #expect(
            try RawCondition.parse("'?' = ?", [.text("?")]) == .compare(.equal, .value(.text("?")), .value(.text("?"))))
    }

    @Test(
        "a token outside the subset is unsupported and named",
        arguments: [
            ("lower(name) = ?", "lower"), ("a + 1 > 2", "+"), ("a || b = 'x'", "||"), ("a ILIKE 'x'", "ILIKE"),
            ("EXISTS (SELECT 1)", "EXISTS"), ("a = 1; DROP TABLE t", ";"), ("a::int = 1", "::"), ("a GLOB 'x'", "GLOB"),
            ("a IN (b)", "b"),
        ])
    func unsupported(_ sql: String, _ token: String) {
        do {
            _ = try RawCondition.parse(sql, [.integer(1)])
            Issue.record("\(sql) parsed")
        } catch .unsupported(let feature, let driver) {
            #expect(driver == "memory")
            #expect(feature.contains("'\(token)'") || (token == "b" && feature.contains("IN list")), "\(feature)")
        } catch {
            Issue.record("\(sql): \(error)")
        }
    }

    @Test(
        "markers and values must match; broken text is an invalid query",
        arguments: [
            ("a = ? AND b = ?", 1), ("a = ?", 2), ("(a = 1", 0), ("a = 'x", 0), ("a =", 0), ("", 0), ("a IS 1", 0),
        ])
    func invalid(_ sql: String, _ binds: Int) {
        #expect {
            _ = try RawCondition.parse(sql, Array(repeating: .integer(1), count: binds))
        } throws: { error in
            if case .invalidQuery = error as? StrataError { return true }
            if case .unsupported = error as? StrataError { return sql == "a IS 1" }
            return false
        }
    }
}
