// TouchedTablesTests: the tables a transaction wrote, gathered once each, in a list and past its limit in a set.
import Testing

@testable import Strata

@Suite("TouchedTables: the tables a transaction announces at its commit")
struct TouchedTablesTests {
    @Test("each table once, in the order first written, whatever the repeats")
    func fewTables() {
        var touched = TouchedTables()
        #expect(touched.isEmpty)
        for table in ["post", "post", "comment", "post", "tag", "comment"] { touched.add(table) }
        #expect(touched.tables == ["post", "comment", "tag"])
        #expect(touched.announced == ["post", "comment", "tag"])
        touched.removeAll()
        #expect(touched.isEmpty && touched.tables.isEmpty)
    }

    @Test("past the list's limit a set keeps the names unique, and it is dropped with them")
    func manyTables() {
        var touched = TouchedTables()
        let names = (0..<40).map { "t\($0)" }
        for name in names + names.reversed() + names { touched.add(name) }
        #expect(touched.tables == names)
        #expect(touched.announced == Set(names))
        touched.removeAll()
        touched.add("t1")
        touched.add("t1")
        #expect(touched.tables == ["t1"])
    }

    @Test("a raw statement makes the tables unknown: nothing named is announced")
    func unknown() {
        var touched = TouchedTables()
        touched.add("post")
        touched.addUnknown()
        #expect(!touched.isEmpty)
        #expect(touched.announced == nil)
    }
}
