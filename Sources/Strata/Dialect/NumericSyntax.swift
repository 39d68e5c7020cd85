// NumericSyntax: what a dialect adds to its SQL so that numbers follow Strata's numeric rules (README).

/// How a dialect makes numbers at their edges follow Strata's one set of rules where its backend would not.
///
/// The rules (README, "Semantics every driver shares"): a decimal expression compares as a number, NaN produced
/// by an expression is NULL, and an integer compared with a double compares as two doubles (PostgreSQL's rule).
/// The default asks for nothing: the backend already follows them.
public struct NumericSyntax: Sendable, Hashable {
    /// The collation that compares decimal text as numbers, named after an expression whose value is a decimal
    /// (`COALESCE("opt_dec", ?) COLLATE "strata_decimal"`), or nil where decimals are numbers already (SQLite
    /// stores them as text). Default nil.
    public var decimalCollation: String?
    /// Whether an arithmetic expression is wrapped so that a NaN result reads as NULL (PostgreSQL keeps NaN;
    /// SQLite makes it NULL by itself). Default false.
    public var nullsNaN: Bool
    /// A function `f(a, b)` returning -1, 0, 1 or NULL, comparing an integer with a double as two doubles and
    /// otherwise as the backend does, for comparisons where an arithmetic result meets another value (SQLite
    /// compares an INTEGER with a REAL exactly). With it, a column compared with a double value past 2^53 is
    /// read as a double (`"n" + 0.0`). Default nil.
    public var mixedComparison: String?

    /// A syntax that asks for nothing.
    public init(decimalCollation: String? = nil, nullsNaN: Bool = false, mixedComparison: String? = nil) {
        self.decimalCollation = decimalCollation
        self.nullsNaN = nullsNaN
        self.mixedComparison = mixedComparison
    }
}

extension Dialect {
    /// Nothing added: the backend already follows Strata's numeric rules.
    public var numericSyntax: NumericSyntax { NumericSyntax() }
}
