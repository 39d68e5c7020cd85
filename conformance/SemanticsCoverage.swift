// SemanticsCoverage: every row of SEMANTICS.md (where SQLite and PostgreSQL differ) and the cases that pin its rule.

/// The rows of the project's semantics table (SQLite 3.40 against PostgreSQL 15, and the rule Strata pins for
/// each), with the conformance cases that pin each rule on every driver. A test checks that every row names at
/// least one case and that every name is a case of the suite, so a renamed or removed case cannot silently
/// leave a row unpinned.
public enum SemanticsCoverage {
    /// `(topic, cases)`, in the table's order.
    public static let rows: [(topic: String, cases: [String])] = [
        (
            "NULL ordering",
            ["order.nulls-first-ascending", "order.nulls-last-descending", "expression.order-by-nulls-first"]
        ),
        ("LIKE case", ["where.like-case-sensitive", "where.like-case-insensitive-ascii"]),
        (
            "LIKE escape",
            [
                "where.like-escapes", "where.like-underscore-is-one-character",
                "parity.like-dangling-escape-is-an-error",
                "parity.raw-like-dangling-escape-refused-before-any-row",
            ]
        ),
        (
            "Collation / ordering",
            [
                "order.strings-by-code-point", "where.text-is-compared-by-bytes",
                "aggregate.min-max-of-text-by-code-point",
            ]
        ),
        ("Unicode case", ["expression.lower-upper-ascii-only", "where.like-case-insensitive-ascii"]),
        (
            "Integer division / modulo",
            ["expression.integer-division-truncates", "expression.modulo-of-negatives-truncates"]
        ),
        (
            "Division by zero",
            [
                "expression.division-by-zero-is-an-error", "expression.double-division-by-zero-is-an-error",
                "expression.update-division-by-zero-changes-nothing",
                "expression.division-by-zero-with-nothing-to-divide-answers",
            ]
        ),
        (
            "Overflow",
            [
                "expression.integer-overflow-is-an-error", "expression.update-overflow-changes-nothing",
                "aggregate.sum-past-int64-is-typed-error",
            ]
        ),
        (
            "avg/sum/count types",
            [
                "aggregate.avg-of-integers-is-double", "aggregate.sum-of-integers-is-int64",
                "aggregate.sum-of-decimals-is-exact", "aggregate.count-column-skips-nulls",
            ]
        ),
        ("Boolean", ["types.bool", "compare.across-types-refused"]),
        (
            "Date/time storage",
            [
                "types.date-microseconds", "where.dates-compare-chronologically",
                "existing.date-comparisons-are-chronological",
            ]
        ),
        (
            "Decimal",
            [
                "types.decimal-exact", "types.decimal-order-and-30-digits",
                "existing.decimal-stored-as-double-reads-shortest",
            ]
        ),
        ("JSON", ["types.codable-as-json", "values.codable-encoding-failure"]),
        (
            "Auto-increment / RETURNING",
            ["save.insert-assigns-ids", "save.new-id-exceeds-stored-ids", "insert-all.sets-ids-in-order"]
        ),
        (
            "Upsert",
            [
                "upsert.updates-the-conflicting-row-and-keeps-its-id",
                "upsert.nothing-keeps-the-row-and-hands-back-its-id", "upsert.target-must-be-a-declared-unique-index",
            ]
        ),
        ("Placeholders", ["values.placeholder-lookalikes-are-data"]),
        (
            "Max bind parameters",
            [
                "insert-all.beyond-the-bind-limit", "in-list.100k-ids",
                "in-list.eager-loading-70k-owners-in-two-statements",
            ]
        ),
        ("Double-quoted strings", ["where.unsafe-raw-misspelt-quoted-column-is-an-error"]),
        ("Identifier case", ["migrate.names-differing-only-in-case-refused"]),
        ("Identifier length", ["migrate.identifier-over-63-bytes-refused"]),
        (
            "Type affinity vs strict",
            [
                "not-null.violation", "decode.wrong-type-is-typed-error", "compare.across-types-refused",
                "like.non-text-column-refused", "write.value-of-another-type-refused",
                "persistence.save-to-retyped-column-refused", "write.insert-all-and-upsert-to-retyped-column-refused",
            ]
        ),
        ("LIMIT/OFFSET", ["limit-and-offset", "offset-without-limit", "limit-negative-is-typed-error"]),
        ("RIGHT / FULL OUTER JOIN", ["join.right-and-full"]),
        (
            "IN with empty list",
            [
                "where.in-empty-matches-nothing", "where.not-in-empty-matches-everything",
                "where.not-in-with-null-matches-nothing", "subquery.empty-in-and-not-in",
            ]
        ),
        ("GROUP BY bare columns", ["group.ungrouped-column-is-typed-error"]),
        (
            "ALTER TABLE for additive migrations",
            ["migrate.adds-columns-keeps-data", "migrate.refuses-required-column-without-default"]
        ),
        (
            "Constraint error codes",
            ["unique.violation-keeps-stored-row", "not-null.violation", "foreign-key.enforced-on-insert"]
        ),
        ("Multiple NULLs in UNIQUE", ["unique.nulls-are-distinct", "upsert.null-key-never-conflicts"]),
        ("Error inside a transaction", ["transaction.error-leaves-it-usable"]),
        ("Savepoint syntax", ["transaction.nested-savepoints", "transaction.savepoint-rolls-back-alone"]),
        (
            "Isolation default",
            [
                "transaction.isolated-until-commit", "concurrency.writer-waits-for-transaction",
                "transaction.isolation.granted-at-least-as-strong",
                "transaction.isolation.retry-reruns-the-body-from-scratch",
            ]
        ),
        (
            "Foreign keys default",
            [
                "foreign-key.enforced-on-insert", "foreign-key.enforced-on-every-new-connection",
                "drop-tables.statement-refused-while-referenced",
                "drop-tables.referenced-by-a-table-not-listed-refused",
                "migrate.transform-delete-runs-on-delete-actions", "migrate.transform-orphan-write-refused",
            ]
        ),
        ("String concat / NULL", ["expression.concat", "expression.concat-null-is-null"]),
        ("NUL in text", ["values.nul-in-text-refused"]),
        ("Noncharacters U+FFFE/U+FFFF", ["like.noncharacters-match-exactly"]),
        ("Explicit id, then an automatic one", ["key.explicit-then-automatic"]),
        ("Very long IN lists", ["in-list.100k-ids", "in-list.long-lists-compare-like-short-ones"]),
        ("A table that references a missing table", ["migrate.missing-referenced-table-changes-nothing"]),
        ("sum over an empty set / count", ["aggregate.empty-input-gives-nil", "aggregate.all-null-gives-nil"]),
        ("1 / 0, 1 % 0", ["expression.division-by-zero-is-an-error"]),
        ("sum(bigint) past Int64", ["aggregate.sum-past-int64-is-typed-error"]),
        ("avg(int)", ["aggregate.avg-of-integers-is-double"]),
        (
            "GROUP BY a nullable column",
            ["group.by-column-null-forms-one-group-first", "group.null-group-last-descending"]
        ),
        ("coalesce(decimalColumn, 2.98) < 10", ["numbers.decimal-expressions-compare-as-numbers"]),
        ("x / x with x = ±inf, y - y with y = -inf", ["numbers.nan-from-expressions-and-aggregates-is-null"]),
        ("update x = x - x at ±inf", ["numbers.nan-from-expressions-and-aggregates-is-null"]),
        ("sum overflowing in a group that HAVING drops", ["numbers.integer-sum-overflow-in-a-dropped-group-answers"]),
        ("avg of doubles near 1e300", ["numbers.avg-of-large-doubles-answers"]),
        ("avg of integers past 2^53", ["numbers.avg-is-the-exact-sum-over-the-count"]),
        (
            "sum of decimals past 38 significant digits",
            [
                "numbers.decimal-past-38-digits-is-typed-error", "sum.decimal-wide-in-having",
                "numbers.decimal-sum-may-pass-38-digits-on-the-way",
            ]
        ),
        ("(Int64.max - 0.0) = Int64.max", ["numbers.integer-and-double-compare-as-doubles"]),
    ]
}
