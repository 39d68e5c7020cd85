// ObservabilityTests: a database that nobody logs or measures pays nothing per statement but one branch.
import Logging
import Metrics
import Testing

@testable import Strata

@Suite struct ObservabilityTests {
    @Test func nothingIsTimedUnlessSomethingListens() {
        func active(_ change: (inout Configuration) -> Void) -> Bool {
            var configuration = Configuration()
            change(&configuration)
            return StatementObserver(configuration: configuration, driverName: "test").isActive
        }
        #expect(!active { _ in }, "the default configuration")
        #expect(!active { $0.logger = Logger(label: "info") }, "a logger at .info logs no statements")
        #expect(active { $0.slowStatementThreshold = 1 }, "a slow-statement threshold")
        #expect(
            active {
                $0.logger = Logger(label: "debug")
                $0.logger.logLevel = .debug
            }, "a logger at .debug")
        #expect(!active { $0.metricsFactory = NOOPMetricsHandler.instance }, "the no-op metrics factory")
    }

    @Test func errorCaseNamesAreTheCases() {
        #expect(StrataError.busy.caseName == "busy")
        #expect(StrataError.uniqueViolation(table: "t", columns: ["c"]).caseName == "uniqueViolation")
        let division = StrataError.arithmeticError(expression: "x / 0", reason: "division by zero")
        #expect(division.caseName == "arithmeticError")
    }
}
