// SemanticsCoverageTests: every row of the semantics table names conformance cases, and every name is a case.
import StrataConformance
import Testing

@Suite struct SemanticsCoverageTests {
    @Test func everyRowIsPinnedByCasesThatExist() {
        let names = Set(ConformanceSuite.caseNames)
        #expect(SemanticsCoverage.rows.count == 51, "the table's 33 original rows, 10 found since and 8 numbers at their edges")
        #expect(Set(SemanticsCoverage.rows.map(\.topic)).count == SemanticsCoverage.rows.count, "topics are unique")
        for row in SemanticsCoverage.rows {
            #expect(!row.cases.isEmpty, "\(row.topic) names no case")
            for name in row.cases {
                #expect(names.contains(name), "\(row.topic): no conformance case named \(name)")
            }
        }
    }

    @Test func caseNamesAreUnique() {
        let names = ConformanceSuite.caseNames
        #expect(Set(names).count == names.count, "duplicate case names")
    }
}
