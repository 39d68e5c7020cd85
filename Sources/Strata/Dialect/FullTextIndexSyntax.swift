// FullTextIndexSyntax: an index table beside a model's table that finds a search query's rows by rowid.

/// The full-text index a backend keeps beside a table for its search document, where a `match` can read it
/// (see ``Dialect/fullTextIndex`` and ``Dialect/fullTextIndexTable(table:column:)``).
public enum FullTextIndexSyntax: Sendable, Hashable {
    /// SQLite's FTS5: an external-content virtual table `"<table>_<column>_fts"` over the document column
    /// (`content='<table>'`, the table's rowid), `tokenize='ascii'` (spaces split; every byte of a non-ASCII
    /// character is a token byte, so Strata's tokens are FTS5's tokens), `detail=none`, kept by three triggers
    /// on the table. A match reads `"t"."rowid" IN (SELECT "rowid" FROM "t_doc_fts" WHERE "t_doc_fts" MATCH ?)`
    /// with the query written as FTS5 strings (`"swift" AND "migr"*`), then confirms each candidate with the
    /// dialect's ``SearchSyntax`` test, so a document written around Strata still matches byte for byte.
    case fts5
}
