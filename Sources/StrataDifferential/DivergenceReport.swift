// DivergenceReport: prints a divergence as a reproduction: seed, check, world, query per dialect and as AST.
import Strata

extension DifferentialEngine {
    /// A divergence as text: where it was found, what each side answered, and the minimal case.
    public func describe(_ d: Divergence) -> String {
        var lines: [String] = []
        let name = d.known.map { " (known: \($0.name))" } ?? ""
        lines.append("DIVERGENCE\(name): \(d.check) — seed \(d.seed), schema batch \(d.batch), query \(d.query)")
        if let k = d.known { lines.append("  \(k.reason)") }
        lines.append(d.minimalDetails ?? d.details)
        let world = d.shownWorld
        lines.append(d.minimalWorld == nil ? "case (not shrunk):" : "minimal case:")
        for t in world.tables {
            let columns = t.schema.columns.map { c in
                c.name + " " + c.type.rawValue + (c.isPrimaryKey ? " primary key" : c.isNullable ? "" : " not null")
            }
            let indexes = t.indexes.map {
                ($0.isUnique ? "unique(" : "index(") + $0.columns.joined(separator: ",") + ")"
            }
            lines.append("  table \(t.name)(\((columns + indexes).joined(separator: ", ")))")
            for (n, row) in t.rows.enumerated() {
                lines.append("    id \(n + 1): " + row.map(ASTText.value).joined(separator: ", "))
            }
        }
        if let w = d.shownWrite {
            lines.append("  AST: " + ASTText.write(w))
            for b in backends {
                if let sql = b.sql(w) { lines.append("  SQL on \(b.name): \(sql)") }
            }
        }
        if let s = d.shownSelect {
            lines.append("  AST: " + ASTText.select(s))
            for b in backends {
                if let sql = b.sql(.select(s)) { lines.append("  SQL on \(b.name): \(sql)") }
            }
        }
        return lines.joined(separator: "\n")
    }
}
