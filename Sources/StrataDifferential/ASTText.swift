// ASTText: prints a generated query as the Swift that builds its AST, so a divergence can be pasted into a test.
import Foundation
import Strata

/// Swift source for query AST values.
enum ASTText {
    static func select(_ s: Select) -> String {
        var parts = ["table: \(quoted(s.table))"]
        switch s.selection {
        case .count: parts.append("selection: .count")
        case .columns(let c): parts.append("selection: .columns([\(c.map(quoted).joined(separator: ", "))])")
        case .refs(let refs):
            parts.append("selection: .refs([\(refs.map { ref($0.name, $0.table) }.joined(separator: ", "))])")
        case .items(let items):
            parts.append("selection: .items(\(String(reflecting: items)))")
        }
        if !s.joins.isEmpty {
            let joins = s.joins.map { j in
                "Join(.\(String(describing: j.kind)), table: \(quoted(j.table)), alias: \(quoted(j.alias)), on: \(node(j.on.node)))"
            }
            parts.append("joins: [\(joins.joined(separator: ", "))]")
        }
        if let f = s.filter { parts.append("filter: " + node(f.node)) }
        if !s.order.isEmpty {
            let order = s.order.map { o in
                if let e = o.expression {
                    return
                        "Ordering(expression: \(node(e.node)), .\(o.direction == .ascending ? "ascending" : "descending"))"
                }
                return "Ordering(\(quoted(o.column)), .\(o.direction == .ascending ? "ascending" : "descending")"
                    + (o.table.map { ", table: \(quoted($0))" } ?? "") + ")"
            }
            parts.append("order: [\(order.joined(separator: ", "))]")
        }
        if let l = s.limit { parts.append("limit: \(l)") }
        if let o = s.offset { parts.append("offset: \(o)") }
        var text = "Select(" + parts.joined(separator: ", ") + ")"
        if !s.groupBy.isEmpty { text += " /* groupBy: \(String(reflecting: s.groupBy)) */" }
        if let h = s.having { text += " /* having: \(String(reflecting: h)) */" }
        if s.distinct { text += " /* distinct */" }
        if let c = s.compound {
            let rest = c.rest.map { "SetOperation(.\(String(describing: $0.kind)), \(select($0.select)))" }
            text += " /* compound: Compound(\(select(c.first)), [\(rest.joined(separator: ", "))]) */"
        }
        if let w = s.commonTable { text += " /* commonTable: CommonTable(\(quoted(w.name)), \(select(w.select))) */" }
        return text
    }

    /// An UPDATE or DELETE as the Swift that builds it.
    static func write(_ w: Statement) -> String {
        switch w {
        case .delete(let d):
            return ".delete(Delete(table: \(quoted(d.table)), filter: \(d.filter.map { node($0.node) } ?? "nil")))"
        case .update(let u):
            let a = u.assignments.map { a in
                if let e = a.expression { return "Assignment(\(quoted(a.column)), expression: \(node(e.node)))" }
                return "Assignment(\(quoted(a.column)), \(value(a.value)))"
            }
            return ".update(Update(table: \(quoted(u.table)), assignments: [\(a.joined(separator: ", "))], "
                + "filter: \(u.filter.map { node($0.node) } ?? "nil")))"
        default: return "\(w)"
        }
    }

    static func node(_ n: SQLExpression.Node) -> String {
        switch n {
        case .column(let c): return ".column(\(quoted(c)))"
        case .joinedColumn(let t, let c): return ".column(\(quoted(c)), table: \(quoted(t)))"
        case .value(let v): return ".value(\(value(v)))"
        case .constant(let b): return ".constant(\(b))"
        case .parameter(let slot): return ".parameter(ParameterSlot(name: \(quoted(slot.name))))"
        case .compare(let op, let l, let r): return ".compare(.\(String(describing: op)), \(node(l)), \(node(r)))"
        case .and(let items): return ".and([\(items.map(node).joined(separator: ", "))])"
        case .or(let items): return ".or([\(items.map(node).joined(separator: ", "))])"
        case .not(let e): return ".not(\(node(e)))"
        case .isNull(let e, let negated): return ".isNull(\(node(e))\(negated ? ", negated: true" : ""))"
        case .inList(let e, let values, let negated):
            return
                ".inList(\(node(e)), [\(values.map(value).joined(separator: ", "))]\(negated ? ", negated: true" : ""))"
        case .like(let e, let pattern, let ci, let negated):
            return ".like(\(node(e)), \(quoted(pattern))\(ci ? ", caseInsensitive: true" : "")"
                + "\(negated ? ", negated: true" : ""))"
        case .between(let e, let low, let high, let negated):
            return ".between(\(node(e)), \(node(low)), \(node(high))\(negated ? ", negated: true" : ""))"
        case .unsafeRaw(let sql, let binds):
            return ".unsafeRaw(\(quoted(sql)), [\(binds.map(value).joined(separator: ", "))])"
        case .arithmetic(let op, let l, let r): return ".arithmetic(.\(String(describing: op)), \(node(l)), \(node(r)))"
        case .concat(let l, let r): return ".concat(\(node(l)), \(node(r)))"
        case .caseMapped(let e, let upper): return (upper ? ".upper(" : ".lower(") + node(e) + ")"
        case .coalesce(let items): return ".coalesce([\(items.map(node).joined(separator: ", "))])"
        case .inSubquery(let e, let s, let negated):
            return ".inSubquery(\(node(e)), \(select(s))\(negated ? ", negated: true" : ""))"
        case .scalarSubquery(let s): return ".scalarSubquery(\(select(s)))"
        case .correlatedExists(let s, let c, let negated):
            let inner = c.inner.map { r in
                r.table.map { "ColumnRef(\(quoted(r.name)), table: \(quoted($0)))" } ?? "ColumnRef(\(quoted(r.name)))"
            }
            return ".correlatedExists(\(select(s)), Correlation(inner: [\(inner.joined(separator: ", "))], outerTable: "
                + "\(quoted(c.outerTable)), outer: [\(c.outer.map(quoted).joined(separator: ", "))])"
                + "\(negated ? ", negated: true" : ""))"
        case .typed(let e, let type): return ".typed(\(node(e)), as: .\(type))"
        case .jsonPath(let e, let path):
            let steps = path.steps.map { step in
                switch step {
                case .key(let k): return ".key(\(quoted(k)))"
                case .index(let i): return ".index(\(i))"
                }
            }
            return ".jsonPath(\(node(e)), JSONPath([\(steps.joined(separator: ", "))], as: .\(path.type)))"
        case .search(let e, let query): return ".search(\(node(e)), \(quoted(query.description)))"
        case .searchRank(let e, let query): return ".searchRank(\(node(e)), \(quoted(query.description)))"
        }
    }

    static func value(_ v: DatabaseValue) -> String {
        switch v {
        case .null: return ".null"
        case .bool(let b): return ".bool(\(b))"
        case .integer(let i): return ".integer(\(i))"
        case .double(let d):
            if d == 0 { return d.sign == .minus ? ".double(-0.0)" : ".double(0.0)" }
            return ".double(\(d))"
        case .text(let s): return ".text(\(quoted(s)))"
        case .blob(let d): return ".blob(Data([\(d.map(String.init).joined(separator: ", "))]))"
        case .date(let d):
            return
                ".date(Date(timeIntervalSince1970: \(Int64((d.timeIntervalSince1970 * 1_000_000).rounded())) / 1e6))  /* \(DateText.format(d)) */"
        case .decimal(let d): return ".decimal(Decimal(string: \"\(d)\")!)"
        case .uuid(let u): return ".uuid(UUID(uuidString: \"\(u.uuidString.lowercased())\")!)"
        case .json(let j): return ".json(\(quoted(j)))"
        }
    }

    private static func ref(_ name: String, _ table: String?) -> String {
        "ColumnRef(\(quoted(name))\(table.map { ", table: \(quoted($0))" } ?? ""))"
    }

    /// A Swift string literal with every non-ASCII or invisible scalar spelled as `\u{…}`.
    static func quoted(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case " "..."~": out.unicodeScalars.append(scalar)
            default: out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            }
        }
        return out + "\""
    }
}
