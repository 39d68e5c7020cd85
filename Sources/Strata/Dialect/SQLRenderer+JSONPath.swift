// SQLRenderer+JSONPath: the scalar at a path inside a JSON column, typed as the path asks, per dialect.

extension SQLRenderer {
    /// Renders ``SQLExpression/Node/jsonPath(_:_:)``: NULL unless the value at the path is of the path's JSON type
    /// (the core has refused an empty path, a bad key or a negative index: see `StatementCheck`).
    ///
    /// The path is written as quoted literals, not bound, so that the same expression in an index matches it.
    mutating func jsonPath(_ column: SQLExpression.Node, _ path: JSONPath) throws(StrataError) {
        guard let syntax = dialect.jsonPathSyntax else {
            throw .unsupported(feature: "JSON paths (\(path))", driver: dialect.name)
        }
        var inner = SQLRenderer(dialect: dialect)
        inner.qualifier = qualifier
        inner.mainTable = mainTable
        try inner.expression(column)
        guard inner.binds.isEmpty else { throw .invalidQuery("a JSON path reads a column, not a bound value") }
        sql += try jsonPathSQL(column: inner.sql, path, syntax: syntax)
    }

    /// The whole typed read of `path` in `column` (SQL text of a column, no binds).
    func jsonPathSQL(column: String, _ path: JSONPath, syntax: JSONPathSyntax) throws(StrataError) -> String {
        let renderer = self
        switch syntax {
        case .jsonFunctions:
            let p = renderer.quotedLiteral(Self.dollarPath(path))
            let type = "json_type(" + column + ", " + p + ")"
            let value = "json_extract(" + column + ", " + p + ")"
            switch path.type {
            case .text: return "CASE WHEN " + type + " = 'text' THEN " + value + " END"
            case .integer:
                // An integer past Int64 has JSON type 'integer' but reads as a REAL: NULL, as on PostgreSQL.
                return "CASE WHEN " + type + " = 'integer' AND typeof(" + value + ") = 'integer' THEN " + value + " END"
            case .double: return "CASE WHEN " + type + " IN ('integer', 'real') THEN CAST(" + value + " AS REAL) END"
            case .bool: return "CASE WHEN " + type + " IN ('true', 'false') THEN " + value + " END"
            }
        case .jsonExtractFunctions(let collation):
            return extractFunctions(column: column, path, collation: collation)
        case .jsonbOperators:
            var node = column
            var text = column
            // jsonb reads `-> 0` of a scalar as the scalar itself (`'true'::jsonb -> 0` is `true`): each index step
            // first checks that its container is an array, as the other backends read it.
            var arrays: [String] = []
            for (n, step) in path.steps.enumerated() {
                let operand: String
                switch step {
                case .key(let k): operand = renderer.quotedLiteral(k)
                case .index(let i):
                    operand = "\(i)"
                    arrays.append("jsonb_typeof(" + node + ") = 'array'")
                }
                node += " -> " + operand
                text += (n == path.steps.count - 1 ? " ->> " : " -> ") + operand
            }
            let type = "jsonb_typeof(" + node + ")"
            let value = "(" + text + ")"
            let read: String
            switch path.type {
            case .text:
                var collation = ""
                if let c = renderer.dialect.binaryTextCollation {
                    collation = " COLLATE " + (try renderer.q(c))
                }
                read = "CASE WHEN " + type + " = 'string' THEN " + value + collation + " END"
            case .integer:
                // Digits only (jsonb writes 1.0 as 1.0), within Int64 (a cast past it would fail the statement).
                let digitsOnly = value + " !~ '^-?[0-9]+$'"
                let inRange = value + "::numeric BETWEEN -9223372036854775808 AND 9223372036854775807"
                read =
                    "CASE WHEN " + type + " <> 'number' OR " + digitsOnly + " THEN NULL WHEN " + inRange + " THEN "
                    + value + "::bigint END"
            case .double: read = "CASE WHEN " + type + " = 'number' THEN " + value + "::double precision END"
            case .bool: read = "CASE WHEN " + type + " = 'boolean' THEN " + value + "::boolean END"
            }
            return arrays.isEmpty ? read : "CASE WHEN " + arrays.joined(separator: " AND ") + " THEN " + read + " END"
        }
    }

    /// The path as SQLite and MySQL write it: `$."tags"[0]`, every key quoted (the core refused `"` in a key).
    static func dollarPath(_ path: JSONPath) -> String {
        var text = "$"
        for step in path.steps {
            switch step {
            case .key(let k): text += ".\"" + k + "\""
            case .index(let i): text += "[\(i)]"
            }
        }
        return text
    }

    /// MySQL-style functions (MariaDB): `JSON_TYPE(JSON_EXTRACT(…))` and casts; `$[0]` of a value that is not an
    /// array reads the value itself there, so each index step first checks that its container is an array.
    private func extractFunctions(column: String, _ path: JSONPath, collation: String) -> String {
        let p = quotedLiteral(Self.dollarPath(path))
        let value = "JSON_EXTRACT(" + column + ", " + p + ")"
        let type = "JSON_TYPE(" + value + ")"
        let read: String
        switch path.type {
        case .text:
            read = "CASE WHEN " + type + " = 'STRING' THEN JSON_UNQUOTE(" + value + ") COLLATE " + collation + " END"
        case .integer:
            read =
                "CASE WHEN " + type + " <> 'INTEGER' OR " + value + " NOT REGEXP '^-?[0-9]+$' THEN NULL WHEN CAST("
                + value + " AS DECIMAL(65, 0)) BETWEEN -9223372036854775808 AND 9223372036854775807 THEN CAST("
                + value + " AS SIGNED) END"
        case .double: read = "CASE WHEN " + type + " IN ('INTEGER', 'DOUBLE') THEN CAST(" + value + " AS DOUBLE) END"
        case .bool: read = "CASE WHEN " + type + " = 'BOOLEAN' THEN " + value + " = 'true' END"
        }
        var arrays: [String] = []
        for (n, step) in path.steps.enumerated() {
            guard case .index = step else { continue }
            let parent = JSONPath(Array(path.steps.prefix(n)), as: path.type)
            let container =
                n == 0 ? column : "JSON_EXTRACT(" + column + ", " + quotedLiteral(Self.dollarPath(parent)) + ")"
            arrays.append("JSON_TYPE(" + container + ") = 'ARRAY'")
        }
        return arrays.isEmpty ? read : "CASE WHEN " + arrays.joined(separator: " AND ") + " THEN " + read + " END"
    }
}
