// WriteHistory: the change history as write programs compare it: transactions in commit order, their changes.
import Strata

/// One change as write programs compare it: the table, the key, the operation and the columns set (sorted). Tokens
/// are a database's own numbers: only which changes share one, and their order, are compared.
struct HistoryLine: Equatable {
    var table: String
    var key: String
    var operation: String
    var columns: [String]

    init(table: String = WPNote.schema.name, key: String, operation: String, columns: [String]) {
        self.table = table
        self.key = key
        self.operation = operation
        self.columns = columns.sorted()
    }

    init(_ change: HistoryChange) {
        self.init(table: change.table, key: change.key, operation: change.operation.rawValue, columns: change.columns)
    }

    var text: String { "\(operation) \(table)/\(key) [\(columns.joined(separator: ","))]" }
}

/// The text of transactions and pages that the reference and every backend must agree on.
enum HistoryText {
    /// A transaction's changes, `{…}`, in write order, except within a run that one statement may have written
    /// (the same table, operation and columns), which is sorted by key: a driver lists one statement's rows in the
    /// order it matched them.
    static func transaction(_ lines: [HistoryLine]) -> String {
        var runs: [[HistoryLine]] = []
        for line in lines {
            if let last = runs.last?.last, last.table == line.table, last.operation == line.operation,
                last.columns == line.columns
            {
                runs[runs.count - 1].append(line)
            } else {
                runs.append([line])
            }
        }
        let ordered = runs.flatMap { $0.sorted { $0.key < $1.key } }
        return "{" + ordered.map(\.text).joined(separator: "; ") + "}"
    }

    /// One page: its transactions, and `+` when it says more follow.
    static func page(_ transactions: [[HistoryLine]], hasMore: Bool) -> String {
        "[" + transactions.map(transaction).joined(separator: " ") + "]" + (hasMore ? "+" : "")
    }

    /// The pages `changes(since:limit:)` returns, asked again from each page's `next` until no more follow, when
    /// `transactions` committed after the token asked from.
    static func pages(_ transactions: [[HistoryLine]], limit: Int) -> String {
        guard !transactions.isEmpty else { return page([], hasMore: false) }
        var out: [String] = []
        var start = 0
        while start < transactions.count {
            let end = min(start + limit, transactions.count)
            out.append(page(Array(transactions[start..<end]), hasMore: end < transactions.count))
            start = end
        }
        return out.joined(separator: " ")
    }

    /// A page's changes cut into transactions (the runs of one token), and what is wrong with its tokens: a token
    /// not above the one before it (`after`), or a `next` that is not the page's last token.
    static func transactions(_ page: HistoryPage, after: Int64?) -> (transactions: [[HistoryLine]], problem: String?) {
        var out: [[HistoryLine]] = []
        var last = after
        var token: Int64?
        var problem: String?
        for change in page.changes {
            if change.token != token {
                if let last, change.token <= last { problem = "token \(change.token) after \(last)" }
                out.append([])
                token = change.token
                last = change.token
            }
            out[out.count - 1].append(HistoryLine(change))
        }
        if let token, page.next.value != token { problem = "next \(page.next.value), last token \(token)" }
        return (out, problem)
    }
}
