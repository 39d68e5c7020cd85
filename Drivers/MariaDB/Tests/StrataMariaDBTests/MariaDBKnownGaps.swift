// MariaDBKnownGaps: the conformance cases MariaDB does not pass yet, each with its reason; the lists only shrink.
import StrataDifferential

/// The cases `MariaDBConformanceTests` expects not to pass. Taking a case off a list is how a fix is proven; adding
/// one needs a reason. The groups behind them are in the package README (Known gaps).
enum MariaDBKnownGaps {
    /// Cases that fail today, by name, with the failure they show.
    static let failing: [String: String] = [
        "diff.changed-defaults-applied-rows-kept": "applied: nothing left",
        "diff.changed-defaults-planned-not-destructive":
            "one change per changed default, in column order: expected [set default of dflt_gadget.active to f...",
        "diff.defaults-of-every-type-match-after-migrate":
            "booleans, integers, doubles, text, JSON, decimals read back alike: DESTRUCTIVE alter column dflt_...",
        "diff.removed-default-planned-as-drop":
            "the default the model no longer declares is dropped: expected [drop default of dflt_gadget.count]...",
        "existing.checked-mapping-reports-every-mismatch-at-once":
            "two mismatched tables: wrong error table 'ex_missing' lacks or mismatches the table and migration...",
        "existing.decimal-over-text-is-refused-up-front":
            "Decimal over a text column: expected an error, none was thrown",
        "existing.decimal-over-text-reads-but-never-compares-as-text": "where >=: expected an error, none was thrown",
        "existing.integer-and-double-over-text-are-refused-naming-each-column":
            "Int64 and Double over text: wrong error cannot read ExCount.pieces: text \"10\" is not a Int64",
        "existing.number-check-follows-the-schema-strata-changes":
            "the recreated text column: expected an error, none was thrown",
        "existing.number-over-text-is-refused-through-joins-and-subqueries":
            "a joined column compared with a number: expected an error, none was thrown",
        "expression.division-by-zero-is-an-error": "views / 0: expected an error, none was thrown",
        "expression.double-division-by-zero-is-an-error": "ratio / 0.0: expected an error, none was thrown",
        "expression.integer-division-truncates": "-5 / 2 = -2: expected [\"Beta\"], got []",
        "expression.integer-overflow-is-an-error": "Int64.min / -1: expected an error, none was thrown",
        "numbers.avg-of-large-doubles-answers":
            "sum past Double.greatestFiniteMagnitude: expected an error, none was thrown",
        "numbers.decimal-past-38-digits-is-typed-error":
            "sum with 40 significant digits: expected an error, none was thrown",
        "numbers.double-sum-overflow-fails-even-in-a-dropped-group":
            "a group HAVING drops: expected an error, none was thrown",
        "numbers.integer-sum-overflow-in-a-dropped-group-answers":
            "having on the big group's sum: expected an error, none was thrown",
        "numbers.nan-from-expressions-and-aggregates-is-null": "wrong type for conf_number.x: error 1264",
        "setop.arithmetic-error-in-a-branch-fails-the-whole-query":
            "UNION with step / step, a step being 0: expected an error, none was thrown",
        "types.double-special-values": "wrong type for conf_value.double: error 1264",
        "history.app-keyed-upsert-records-its-key":
            "an upsert that keeps the stored row (the ON DUPLICATE KEY form of DO NOTHING) is recorded as an insert",
        "composite-key.association-foreign-key-migrates-twice":
            "the two-column key read back: introspection reads a foreign key's first column only "
            + "(KEY_COLUMN_USAGE.ORDINAL_POSITION = 1), so a second migration plans it again",
        "window.running-total-and-whole-partition-frames":
            "ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING with no ORDER BY sums rows so far, not the partition",
    ]

    /// Cases the driver refuses with `unsupported`, with the reason (at most 5% of the suite).
    static let unsupported: [String: String] = [
        "upsert.own-key-rolled-back-with-its-transaction":
            "an upsert on conf_keyed_label that may conflict on PRIMARY (id) besides its target (slug)",
        "upsert.rolled-back-upsert-makes-the-model-new-again":
            "an upsert on conf_sku that may conflict on conf_sku_barcode_key (barcode) besides its target (code)",
        "upsert.own-key-conflict-on-the-key-while-targeting-another-index":
            "an upsert on conf_keyed_label that may conflict on PRIMARY (id) besides its target (slug)",
        "upsert.own-key-nothing-keeps-the-row":
            "an upsert on conf_keyed_label that may conflict on conf_keyed_label_slug_key (slug) besides its target (id)",
        "upsert.own-key-on-another-index-takes-the-stored-key":
            "an upsert on conf_keyed_label that may conflict on PRIMARY (id) besides its target (slug)",
        "upsert.own-key-on-the-key-inserts-then-updates":
            "an upsert on conf_keyed_label that may conflict on conf_keyed_label_slug_key (slug) besides its target (id)",
        "join.right-and-full": "FULL JOIN on mariadb",
        "transaction.abort-mode-bulk-writes-that-fail-leave-models-and-rows-as-they-were":
            "an upsert on conf_sku that may conflict on its unique key conf_sku_barcode_key (barcode) besides ...",
        "upsert.all-large-batch-crosses-statements":
            "an upsert on conf_sku that may conflict on its unique key conf_sku_barcode_key (barcode) besides ...",
        "upsert.all-maps-ids-to-models-in-order":
            "an upsert on conf_sku that may conflict on its unique key conf_sku_barcode_key (barcode) besides ...",
        "upsert.all-nothing-maps-kept-and-inserted-ids":
            "an upsert on conf_sku that may conflict on its unique key conf_sku_barcode_key (barcode) besides ...",
        "upsert.composite-unique-key":
            "an upsert on conf_sku that may conflict on its unique key conf_sku_barcode_key (barcode) besides ...",
        "upsert.conflict-on-another-unique-index-is-a-unique-violation":
            "an upsert on conf_sku that may conflict on its unique key conf_sku_barcode_key (barcode) besides ...",
        "upsert.inserts-a-new-row":
            "an upsert on conf_sku that may conflict on its unique key conf_sku_barcode_key (barcode) besides ...",
        "upsert.nothing-keeps-the-row-and-hands-back-its-id":
            "an upsert on conf_sku that may conflict on its unique key conf_sku_barcode_key (barcode) besides ...",
        "upsert.null-key-never-conflicts":
            "an upsert on conf_sku that may conflict on its unique key conf_sku_code_key (code) besides its ta...",
        "upsert.repeated-key-in-one-batch":
            "an upsert on conf_sku that may conflict on its unique key conf_sku_barcode_key (barcode) besides ...",
        "upsert.rolls-back-with-its-transaction":
            "an upsert on conf_sku that may conflict on its unique key conf_sku_barcode_key (barcode) besides ...",
        "upsert.updates-only-the-listed-columns":
            "an upsert on conf_sku that may conflict on its unique key conf_sku_barcode_key (barcode) besides ...",
        "upsert.updates-the-conflicting-row-and-keeps-its-id":
            "an upsert on conf_sku that may conflict on its unique key conf_sku_barcode_key (barcode) besides ...",
        "upsert.validation-runs-and-writes-nothing":
            "an upsert on conf_sku that may conflict on its unique key conf_sku_barcode_key (barcode) besides ...",
    ]

}

extension MariaDBKnownGaps {
    /// The known gap a divergence of the differential engine shows, by MariaDB's SQL for the statement and what
    /// differed, or nil for a new one.
    static func divergence(check: Check, sql: String, details: String) -> String? {
        // Integer `/` is exact division, division by zero is NULL and overflow is not an error in a SELECT
        // (expression.* and numbers.* above).
        if sql.contains(" / ") || sql.contains(" % ") || sql.contains(" * ") || sql.contains(" + ")
            || sql.contains(" - ") || sql.contains("SUM(") || sql.contains("AVG(")
        {
            return "arithmetic"
        }
        // RANK()/DENSE_RANK() over a window with no ORDER BY, where every row is a peer ranked 1 elsewhere, is
        // error 4018 "No order list in window specification" (found by seed 1590041838; the renderer could write
        // `ORDER BY NULL` there).
        if details.contains("error 4018") { return "rank-without-order" }
        // FULL JOIN is refused before any SQL runs (join.right-and-full, unsupported).
        if details.contains("FULL JOIN is not supported") { return "full-join" }
        return nil
    }
}
