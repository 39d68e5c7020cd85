// ModelMacro tests: snake_case conversion of type and property names.
import StrataMacros
import XCTest

final class SnakeCaseTests: XCTestCase {
    func testWordBoundaries() {
        XCTAssertEqual(SnakeCase.convert("id"), "id")
        XCTAssertEqual(SnakeCase.convert("name"), "name")
        XCTAssertEqual(SnakeCase.convert("joinedAt"), "joined_at")
        XCTAssertEqual(SnakeCase.convert("UserGroup"), "user_group")
    }

    func testAcronyms() {
        XCTAssertEqual(SnakeCase.convert("groupID"), "group_id")
        XCTAssertEqual(SnakeCase.convert("userURLString"), "user_url_string")
        XCTAssertEqual(SnakeCase.convert("HTTPStatus"), "http_status")
        XCTAssertEqual(SnakeCase.convert("HTTPLog"), "http_log")
        XCTAssertEqual(SnakeCase.convert("URL"), "url")
    }

    func testDigitsAndUnderscores() {
        XCTAssertEqual(SnakeCase.convert("x2y"), "x2y")
        XCTAssertEqual(SnakeCase.convert("line2Total"), "line2_total")
        XCTAssertEqual(SnakeCase.convert("already_snake"), "already_snake")
        XCTAssertEqual(SnakeCase.convert("_private"), "_private")
        XCTAssertEqual(SnakeCase.convert("foo_Bar"), "foo_bar")
    }
}
