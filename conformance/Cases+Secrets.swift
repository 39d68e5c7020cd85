// Cases+Secrets: a statement's bound values reach no log and no error text, even when it cannot be rendered.
import Logging
import Strata

extension ConformanceSuite {
    static let secretCases: [ConformanceCase] = [
        ConformanceCase("log.unrenderable-statement-shows-no-values") { db in
            try await Fixtures.migrate(db)
            let logs = CapturedLogs()
            let logged = try await observed(db) { $0.logger = logs.logger(level: .debug) }
            defer { logged.close() }
            // A NUL in an identifier makes the statement unrenderable on every dialect; its value is a secret.
            let insert = Statement.insert(
                Insert(table: "conf_user", columns: ["name\u{0}x"], rows: [[.text("hunter2-secret")]]))
            let update = Statement.update(
                Update(
                    table: "conf_user", assignments: [Assignment("email\u{0}", .text("hunter2-secret"))],
                    filter: .compare(.equal, .column("name"), .value(.text("hunter2-secret")))))
            for statement in [insert, update] {
                var shown = ""
                try await checkThrows(
                    "an unrenderable statement",
                    { error in
                        shown = "\(error)"
                        return true
                    }
                ) {
                    try await logged.withConnection { tx in _ = try tx.execute(statement) }
                }
                try check(!shown.contains("hunter2"), "the error shows no bound value: \(shown)")
            }
            let failed = logs.records.filter { $0.message == "statement failed" }
            try check(failed.count >= 2, "both failures are logged (\(failed.count))")
            for record in logs.records {
                let text = record.message + " " + record.metadata.values.joined(separator: " ")
                try check(!text.contains("hunter2"), "no log shows a bound value: \(text)")
            }
            try check(
                "\(insert)".contains("conf_user") && !"\(insert)".contains("hunter2")
                    && !String(reflecting: update).contains("hunter2"),
                "a statement's description names its table, not its values: \(insert)")
        }
    ]
}
