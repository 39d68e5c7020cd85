// MemorySearchIndex: the memory driver's inverted index of a search document column, token → slots.
import Strata

/// The tokens of one text column's search documents, each with the slots of the rows that hold it.
///
/// Built by the first SELECT that matches a query against the column (see ``MemoryTable/prepareSearchIndex(for:)``),
/// then kept in step by every change of a slot (insert, update, delete, and their undo), as the unique indexes are.
/// A document is split on spaces, and tokens are compared by their UTF-8 bytes, as SQLite's LIKE and PostgreSQL's
/// tsvector compare them.
struct MemorySearchIndex: Sendable {
    /// The document column's position.
    let column: Int
    /// Token → slots of the rows whose document holds it.
    private(set) var postings: [[UInt8]: Set<Int>] = [:]

    init(column: Int, rows: [[DatabaseValue]]) {
        self.column = column
        for slot in rows.indices where !rows[slot].isEmpty { add(rows[slot], slot: slot) }
    }

    /// Indexes the document of `row`, stored in `slot`.
    mutating func add(_ row: [DatabaseValue], slot: Int) {
        guard case .text(let document) = row[column] else { return }
        for token in CompiledCondition.searchTokens(document) { postings[token, default: []].insert(slot) }
    }

    /// Forgets the document of `row`, which `slot` held.
    mutating func remove(_ row: [DatabaseValue], slot: Int) {
        guard case .text(let document) = row[column] else { return }
        for token in CompiledCondition.searchTokens(document) {
            postings[token]?.remove(slot)
            if postings[token]?.isEmpty == true { postings[token] = nil }
        }
    }

    /// Whether a filter has a `match` where ``MemoryTable/searchSlots(_:)`` can use it: alone or in an AND.
    static func hasMatch(_ node: SQLExpression.Node) -> Bool {
        switch node {
        case .search: return true
        case .and(let items): return items.contains(where: hasMatch)
        default: return false
        }
    }

    /// Forgets every row.
    mutating func removeAll() { postings.removeAll(keepingCapacity: true) }

    /// The slots whose document matches `query`, in ascending order: every clause's slots intersected, a clause's
    /// alternatives united, an alternative's terms intersected; a prefix term unites the tokens that start with it.
    func slots(_ query: SearchQuery) -> [Int] {
        var result: Set<Int>?
        for clause in query.clauses {
            var clauseSlots = Set<Int>()
            for alternative in clause {
                var alternativeSlots: Set<Int>?
                for term in alternative {
                    let found = slots(term)
                    alternativeSlots = alternativeSlots.map { $0.intersection(found) } ?? found
                    if alternativeSlots?.isEmpty == true { break }
                }
                clauseSlots.formUnion(alternativeSlots ?? [])
            }
            result = result.map { $0.intersection(clauseSlots) } ?? clauseSlots
            if result?.isEmpty == true { break }
        }
        return (result ?? []).sorted()
    }

    private func slots(_ term: SearchQuery.Term) -> Set<Int> {
        let bytes = Array(term.token.utf8)
        if !term.isPrefix { return postings[bytes] ?? [] }
        var out = Set<Int>()
        for (token, slots) in postings where token.starts(with: bytes) { out.formUnion(slots) }
        return out
    }
}

extension MemoryTable {
    /// Builds the search index of each text column a `match` term of `condition` (alone or in an AND) reads, so
    /// that ``searchSlots(_:)`` can use it. Only a SELECT builds one; every later write keeps it in step.
    mutating func prepareSearchIndex(for condition: CompiledCondition) {
        switch condition {
        case .and(let items): for item in items { prepareSearchIndex(for: item) }
        case .search(.column(let c), _): addSearchIndex(column: c)
        default: break
        }
    }

    /// The slots an inverted index gives for a `match` term of `condition` (alone or in an AND), in insertion
    /// order, or nil when no term has a built index. The condition is still evaluated on each of them.
    ///
    /// Only for a condition no row can make fail: SQLite and PostgreSQL scan, so an overflow or a type error in
    /// another term fails the query on a row the match would have skipped (found by the differential engine at
    /// seed 20261129).
    func searchSlots(_ condition: CompiledCondition) -> [Int]? {
        guard Self.cannotFail(condition) else { return nil }
        switch condition {
        case .and(let items):
            for item in items { if let found = searchSlots(item) { return found } }
            return nil
        case .search(.column(let c), let query):
            return searchIndexes.first { $0.column == c }?.slots(query)
        default:
            return nil
        }
    }

    /// Whether evaluating `condition` can throw on no row: comparisons, NULL tests, IN lists and BETWEEN of columns
    /// and values, matches, and AND, OR and NOT of those (no arithmetic, no LIKE, no value used as a condition).
    static func cannotFail(_ condition: CompiledCondition) -> Bool {
        func plain(_ o: Operand) -> Bool {
            switch o {
            case .column, .value: return true
            case .condition, .computed: return false
            }
        }
        switch condition {
        case .constant, .search(.column, _): return true
        case .compare(_, let l, let r): return plain(l) && plain(r)
        case .isNull(let e, _), .inList(let e, _, _): return plain(e)
        case .between(let e, let low, let high, _): return plain(e) && plain(low) && plain(high)
        case .and(let items), .or(let items): return items.allSatisfy(cannotFail)
        case .not(let e): return cannotFail(e)
        case .operand, .like, .search: return false
        }
    }
}
