// Cases+Validation: validators run before every save, collect every failure, and write nothing.
import Strata

extension ConformanceSuite {
    static let validationCases: [ConformanceCase] = [
        ConformanceCase("validation.collects-all-failures") { db in
            try await Fixtures.migrate(db)
            var bad = ConfAccount(name: " ", email: "no-at-sign")
            try await checkThrows(
                "invalid account",
                {
                    guard case .validationFailed(let errors) = $0 else { return false }
                    return Set(errors.map { "\($0.field):\($0.rule)" }) == ["name:presence", "email:format"]
                }
            ) { try await bad.save(on: db) }
            try checkEqual(try await ConfAccount.query(on: db).count(), 0, "nothing written")
        },
        ConformanceCase("validation.uniqueness") { db in
            try await Fixtures.migrate(db)
            var a = ConfAccount(name: "Ann", email: "ann@x.io")
            try await a.save(on: db)
            var b = ConfAccount(name: "Bea", email: "ann@x.io")
            try await checkThrows(
                "duplicate email",
                {
                    $0 == .validationFailed([ValidationError(model: "ConfAccount", field: "email", rule: "uniqueness")])
                }
            ) { try await b.save(on: db) }
            a.name = "Anne"
            try await a.save(on: db)  // its own email is not a duplicate of itself
            try checkEqual(try await ConfAccount.find(a.id ?? -1, on: db)?.name, "Anne", "update passes uniqueness")
        },
        ConformanceCase("validation.custom-and-length") { db in
            try await Fixtures.migrate(db)
            var lol = ConfAccount(name: "LOLcat", email: "c@x.io")
            try await checkThrows(
                "custom rule",
                {
                    $0 == .validationFailed([ValidationError(model: "ConfAccount", field: "name", rule: "prefix")])
                }
            ) { try await lol.save(on: db) }
            var long = ConfAccount(name: String(repeating: "n", count: 21), email: "l@x.io")
            try await checkThrows(
                "length rule",
                {
                    $0 == .validationFailed([ValidationError(model: "ConfAccount", field: "name", rule: "length")])
                }
            ) { try await long.save(on: db) }
            var ok = ConfAccount(name: "Fine", email: "f@x.io")
            try await ok.save(on: db)
            try check(ok.id != nil, "valid account saved")
        },
    ]
}
