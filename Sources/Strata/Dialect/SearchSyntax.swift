// SearchSyntax: how a dialect matches a full-text query against the search document Strata stored.

/// How the backend finds a ``SearchQuery``'s terms in a search document column (tokens Strata normalized and
/// joined by single spaces, see ``SearchText``). Both spellings compare whole tokens, or token prefixes, byte for
/// byte: the database tokenizes nothing, so every backend matches the same rows.
public enum SearchSyntax: Sendable, Hashable {
    /// Each term as a LIKE over the document padded with spaces: `(' ' || "doc" || ' ') LIKE '% swift %'`, and
    /// `'% migr%'` for a prefix. Any backend can run it; no index helps it.
    case likeTokens
    /// Each term found by a substring-position function in the padded document: `instr((' ' || "doc" || ' '),
    /// ' swift ') > 0`, and `' migr'` for a prefix: the same rows as ``likeTokens``, through the backend's own
    /// byte search (SQLite's `instr`, where Strata's exact LIKE is a registered Swift function).
    case position(function: String)
    /// PostgreSQL's text search without its parser: `array_to_tsvector(array_remove(string_to_array("doc", ' '),
    /// '')) @@ CAST($1 AS tsquery)`, the query bound as tsquery text Strata writes (`'swift' & 'migr':*`). A GIN
    /// index on the same `array_to_tsvector(…)` expression, which automatic migration creates, serves it.
    /// (`array_remove` drops the empty strings two spaces in a row would make, which `array_to_tsvector` refuses.)
    case tsquery
}
