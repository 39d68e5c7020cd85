// ConformanceSuite: the shared cases every driver must pass, and the runner that reports each by name.
import Strata

/// One conformance case: a name (`group.behaviour`) and a body run against a fresh fixture schema.
public struct ConformanceCase: Sendable {
    public let name: String
    let body: @Sendable (Database) async throws -> Void

    init(_ name: String, _ body: @escaping @Sendable (Database) async throws -> Void) {
        self.name = name
        self.body = body
    }
}

/// How a case ended on a driver.
public enum ConformanceOutcome: Sendable, Equatable, CustomStringConvertible {
    case passed
    case failed(String)
    /// The driver declared it cannot do this (``StrataError/unsupported(feature:driver:)``); never a pass.
    case unsupported(String)

    public var description: String {
        switch self {
        case .passed: return "pass"
        case .failed(let why): return "FAIL: \(why)"
        case .unsupported(let what): return "unsupported (\(what))"
        }
    }

    public var isFailure: Bool {
        if case .failed = self { return true }
        return false
    }
}

/// The suite: every case, and how to run them against a database.
public enum ConformanceSuite {
    /// Every case, in a stable order.
    public static let cases: [ConformanceCase] = [
        urlCases,
        migrationCases,
        persistenceCases,
        queryCases,
        orderingCases,
        constraintCases,
        validationCases,
        transactionCases,
        typeCases,
        associationCases,
        eagerLoadingCases,
        joinCases,
        keyCases,
        keyTypeCases,
        compositeKeyCases,
        compositeKeyAssociationCases,
        compositeKeyExistenceCases,
        compositeKeyThroughCases,
        polymorphicCases,
        lockingCases,
        rowLockCases,
        identifierCases,
        modelCases,
        callbackCases,
        stampCases,
        softDeleteCases,
        textCases,
        parityCases,
        valueCases,
        concurrencyCases,
        semanticsCases,
        observabilityCases, callerLoggerCases, gracefulCloseCases,
        secretCases,
        observationCases,
        aggregateCases,
        expressionCases,
        upsertCases, upsertOwnKeyCases, inListCases, rawCases,
        existingCases,
        versionedCases, alterCases, introspectCases, migrationProgramCases, dropTablesCases,
        modelsUnderMigrationCases,
        migrationDefaultCases,
        addColumnFillCases,
        loadCases,
        bulkIdsCases,
        writeIntegrityCases,
        failedStatementCases,
        numberCases,
        encryptedCases,
        pageCases,
        historyCases,
        setOperationCases,
        commonTableCases,
        recursiveCommonTableCases,
        windowCases,
        generatedCases,
        databaseDefaultCases,
        jsonPathCases,
        searchCases,
        runningAggregateCases,
        associationAggregateCases,
        typeCheckCases,
        rowDecodingCases,
        preparedCases,
    ].flatMap { $0 }

    /// The names of every case.
    public static var caseNames: [String] { cases.map(\.name) }

    /// The case with this name.
    public static func `case`(named name: String) -> ConformanceCase? { cases.first { $0.name == name } }

    /// Drops the fixture tables, then runs one case.
    public static func run(_ c: ConformanceCase, on db: Database) async -> ConformanceOutcome {
        do {
            try await Fixtures.reset(db)
            try await c.body(db)
            return .passed
        } catch let StrataError.unsupported(feature, driver) {
            return .unsupported("\(feature) on \(driver)")
        } catch let failure as ConformanceFailure {
            return .failed(failure.description)
        } catch {
            return .failed("unexpected error: \(error)")
        }
    }

    /// Runs every case on one database, reporting each as it ends; returns the outcomes in order.
    public static func runAll(on db: Database, report: (String, ConformanceOutcome) -> Void = { _, _ in })
        async -> [(name: String, outcome: ConformanceOutcome)]
    {
        var results: [(name: String, outcome: ConformanceOutcome)] = []
        for c in cases {
            let outcome = await run(c, on: db)
            report(c.name, outcome)
            results.append((c.name, outcome))
        }
        try? await Fixtures.reset(db)
        return results
    }
}
