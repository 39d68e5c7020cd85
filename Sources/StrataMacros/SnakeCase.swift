// SnakeCase: converts Swift identifiers to snake_case table and column names.

public enum SnakeCase {
    /// `groupID` → `group_id`, `userURLString` → `user_url_string`, `HTTPStatus` → `http_status`.
    ///
    /// An underscore goes before an uppercase letter when the previous character is lowercase
    /// or a digit, or when the previous character is uppercase and the next one is lowercase.
    public static func convert(_ name: String) -> String {
        let characters = Array(name)
        var result = ""
        for (index, character) in characters.enumerated() {
            if index > 0, character.isUppercase {
                let previous = characters[index - 1]
                let next: Character? = index + 1 < characters.count ? characters[index + 1] : nil
                let endsWord = previous.isLowercase || previous.isNumber
                let endsAcronym = previous.isUppercase && (next?.isLowercase ?? false)
                if endsWord || endsAcronym {
                    result.append("_")
                }
            }
            result += character.lowercased()
        }
        return result
    }
}
