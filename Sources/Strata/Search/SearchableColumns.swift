// SearchableColumns: a model's full-text declaration: the text columns searched and the column Strata writes.

/// The text columns a model searches, and the column that stores their search document.
///
/// Strata writes the document itself on every save, insert, upsert and bulk load: the tokens of the searchable
/// columns, normalized by ``SearchText`` and joined by spaces. No database tokenizes, so `match` finds the same
/// rows on SQLite, PostgreSQL and the memory driver.
///
/// ```swift
/// @Model struct Article {
///     var id: Int64?
///     var title: String
///     var body: String?
///     var searchDocument = ""      // written by Strata from title and body
///     static var searchable: SearchableColumns<Article>? { .init(\.title, \.body, document: \.searchDocument) }
/// }
/// let hits = try await Article.query(on: db).match("swift orm*").all()
/// ```
public struct SearchableColumns<M: Model>: Sendable {
    let sources: [PropertyKeyPath]
    let document: PropertyKeyPath

    /// Searches `columns` (`String` or `String?` properties) through the `String` property `document`.
    ///
    /// - Parameters:
    ///   - columns: the searched columns, in the order their tokens enter the document.
    ///   - document: a stored `String` property that only Strata writes.
    public init(_ columns: PartialKeyPath<M>..., document: KeyPath<M, String>) {
        sources = columns.map { PropertyKeyPath(keyPath: $0, valueType: nil) }
        self.document = PropertyKeyPath(keyPath: document, valueType: nil)
    }

    /// The positions of the searched columns and of the document column in ``Model/schema``.
    ///
    /// - Throws: ``StrataError/invalidSearch(model:part:reason:)`` for no searched column, a property with no
    ///   column, a searched column that is not text or is encrypted, or a document column that is searched itself,
    ///   is not a non-optional `String` column, is generated, encrypted or the primary key.
    func positions() throws(StrataError) -> (sources: [Int], document: Int) {
        let schema = M.schema
        func position(_ p: PropertyKeyPath) throws(StrataError) -> Int {
            guard let kp = p.keyPath, let i = schema.index(of: kp) else {
                throw .invalidSearch(
                    model: M.modelName, part: p.keyPath.map { "\($0)" } ?? "?", reason: "is not a stored property")
            }
            return i
        }
        let document = try position(self.document)
        let d = schema.columns[document]
        guard d.type == .text, !d.isNullable, !d.isGenerated, d.encryption == nil, !d.isPrimaryKey else {
            throw .invalidSearch(
                model: M.modelName, part: d.name,
                reason: "cannot hold the search document: it must be a non-optional, unencrypted String column")
        }
        guard !self.sources.isEmpty else {
            throw .invalidSearch(model: M.modelName, part: d.name, reason: "documents no searchable column")
        }
        var sources: [Int] = []
        for p in self.sources {
            let i = try position(p)
            let c = schema.columns[i]
            guard i != document, c.type == .text, c.encryption == nil else {
                throw .invalidSearch(
                    model: M.modelName, part: c.name,
                    reason: "cannot be searched: only unencrypted String columns other than the document can")
            }
            sources.append(i)
        }
        return (sources, document)
    }
}

extension Model {
    /// No full-text search.
    @inlinable public static var searchable: SearchableColumns<Self>? { nil }

    /// `values` (one per column) with the search document written from the searchable columns' values.
    ///
    /// Inlined, so that a model without full-text search (the default ``searchable``) hands its values on untouched:
    /// generic, every save asked the witness for `searchable` and destroyed the nil it returned (about 120
    /// instructions).
    @inlinable
    static func fillingSearchDocument(_ values: consuming [DatabaseValue]) throws(StrataError) -> [DatabaseValue] {
        guard let search = searchable else { return values }
        return try filling(values, search)
    }

    /// `values` with the search document of `search` written into its column.
    @usableFromInline
    static func filling(_ values: [DatabaseValue], _ search: SearchableColumns<Self>) throws(StrataError)
        -> [DatabaseValue]
    {
        let (sources, document) = try search.positions()
        var out = values
        out[document] = .text(
            SearchText.document(
                sources.map { i -> String? in
                    if case .text(let s) = values[i] { return s }
                    return nil
                }))
        return out
    }

    /// The search document's column, and the columns whose change rewrites it, or nil without full-text search.
    static func searchColumns() throws(StrataError) -> (sources: [Int], document: Int)? {
        try searchable?.positions()
    }
}
