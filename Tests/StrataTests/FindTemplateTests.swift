// FindTemplateTests: what a find binds and how a driver tells its template from another, without a database.
import Foundation
import Testing

@testable import Strata

@Model(table: "find_line", primaryKey: ["orderID", "sku"])
struct FindLine {
    var orderID: Int64
    var sku: String
    var quantity: Int
}

@Model(table: "find_note")
struct FindNote {
    var id: Int64?
    var text: String
}

/// A composite key written by hand, without `@Model`'s `appendKeyValues(to:)`: the protocol's default serves it.
struct HandKey: CompositeKey {
    var a: Int64
    var b: String
    var keyValues: [DatabaseValue] { [.integer(a), .text(b)] }
    static var keyColumns: [String] { ["a", "b"] }
}

@Suite("Find templates")
struct FindTemplateTests {
    @Test("a find appends its key's values to the reused array, in keyValues' order, after nothing else")
    func appendedBinds() {
        var binds: [DatabaseValue] = []
        binds.reserveCapacity(4)
        let line = FindLine.ID(orderID: 7, sku: "a\u{0}b")
        #expect(FindLine.appendFindBinds(line, to: &binds))
        #expect(binds == [.integer(7), .text("a\u{0}b")])
        #expect(binds == line.keyValues)
        #expect(binds == FindLine.findBinds(line))
        binds.removeAll(keepingCapacity: true)
        #expect(FindNote.appendFindBinds(42, to: &binds))
        #expect(binds == [.integer(42)] && binds == FindNote.findBinds(42))
        var hand: [DatabaseValue] = [.null]
        HandKey(a: -1, b: "x").appendKeyValues(to: &hand)
        #expect(hand == [.null, .integer(-1), .text("x")])
        var one: [DatabaseValue] = []
        Int64.max.appendKeyValues(to: &one)
        "k".appendKeyValues(to: &one)
        #expect(one == [.integer(.max), .text("k")])
    }

    @Test("isSame(as:) answers as == on every pair of templates, payload kinds included")
    func sameAsEquality() {
        let keep = OnConflict(target: ["sku"], action: .nothing)
        let update = OnConflict(target: ["sku"], action: .update(set: ["quantity"], increment: []))
        let templates = [
            StatementTemplate(FindLine.self, .findByKey, table: "find_line"),
            StatementTemplate(FindNote.self, .findByKey, table: "find_line"),
            StatementTemplate(FindLine.self, .findByKey, table: "find_note"),
            StatementTemplate(FindLine.self, .insertReturningKey, table: "find_line"),
            StatementTemplate(FindLine.self, .insertRowsReturningKey(1), table: "find_line"),
            StatementTemplate(FindLine.self, .insertRowsReturningKey(2), table: "find_line"),
            StatementTemplate(FindLine.self, .upsertRowsReturningKey(2, keep), table: "find_line"),
            StatementTemplate(FindLine.self, .upsertRowsReturningKey(2, update), table: "find_line"),
        ]
        var compared = 0
        for a in templates {
            for b in templates + [StatementTemplate(FindLine.self, .insertRowsReturningKey(2), table: "find_line")] {
                #expect(a.isSame(as: b) == (a == b), "\(a) against \(b)")
                compared += 1
            }
        }
        #expect(compared == templates.count * (templates.count + 1))
        #expect(templates.filter(\.readsAtMostOneRow).count == 3)
        #expect(templates.filter(\.isRead).count == 3)
    }
}
