// ExtremeIDTests: any Int64 primary key (Int64.min, Int64.max, far-apart negatives and positives) saves and is found.
import Strata
import Testing

@testable import StrataMemory

/// A small seeded generator, so a failure names the step that reproduces it.
private struct Seeded: RandomNumberGenerator {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Ids at and around the ends of Int64 and zero, and far apart from each other.
private let extremes: [Int64] = [
    .min, .min + 1, .min + 2, -5_000_000_000_000_000_000, -(1 << 62), -65, -64, -2, -1, 0, 1, 2, 63, 64, 65, 1 << 40,
    1 << 62, 5_000_000_000_000_000_000, .max - 2, .max - 1, .max,
]

@Suite("Extreme ids")
struct ExtremeIDTests {
    @Test("ids −5e18 then 5e18 save and are found (once a trap in the slot map)")
    func farApart() throws {
        let c = try makeItems()
        for id: Int64 in [-5_000_000_000_000_000_000, 5_000_000_000_000_000_000, .min, .max] {
            try run(
                c, .insert(Insert(table: "item", columns: ["id", "name"], rows: [[.integer(id), .text("n\(id)")]])))
        }
        for id: Int64 in [-5_000_000_000_000_000_000, 5_000_000_000_000_000_000, .min, .max] {
            #expect(try fetch(c, where: .compare(.equal, col("id"), int(id))) == [[.text("n\(id)")]])
        }
        #expect(try count(c) == 4)
        let ascending = try fetch(c, "item", ["id"], order: [Ordering("id")]).map { $0[0] }
        #expect(
            ascending == [.min, -5_000_000_000_000_000_000, 5_000_000_000_000_000_000, .max].map(DatabaseValue.integer))
    }

    @Test("every pair of extreme ids, inserted in either order, deleted and re-inserted")
    func everyPair() throws {
        for a in extremes {
            for b in extremes where b != a {
                let c = try makeItems()
                for id in [a, b] {
                    try run(
                        c, .insert(Insert(table: "item", columns: ["id", "name"], rows: [[.integer(id), .text("x")]])))
                }
                #expect(try count(c, where: .compare(.equal, col("id"), int(a))) == 1, "\(a) after \(b)")
                #expect(try count(c, where: .compare(.equal, col("id"), int(b))) == 1, "\(b) after \(a)")
                #expect(try run(c, .delete(Delete(table: "item", filter: .compare(.equal, col("id"), int(a))))) == 1)
                #expect(try count(c, where: .compare(.equal, col("id"), int(a))) == 0)
                #expect(try count(c, where: .compare(.equal, col("id"), int(b))) == 1)
                try run(c, .insert(Insert(table: "item", columns: ["id", "name"], rows: [[.integer(a), .text("y")]])))
                #expect(try fetch(c, where: .compare(.equal, col("id"), int(a))) == [[.text("y")]])
                let moved = Update(
                    table: "item", assignments: [Assignment("id", .integer(a == 0 ? 7 : 0))],
                    filter: .compare(.equal, col("id"), int(b)))
                if b != (a == 0 ? 7 : 0) {
                    #expect(try run(c, .update(moved)) == 1, "move \(b)")
                    #expect(try count(c, where: .compare(.equal, col("id"), int(b))) == 0)
                }
                #expect(try count(c) == 2)
            }
        }
    }

    @Test("auto ids continue after Int64.max - 1 and stop with a typed error at Int64.max")
    func autoIDAtTheEnd() throws {
        let c = try makeItems()
        try run(c, .insert(Insert(table: "item", columns: ["id", "name"], rows: [[.integer(.max - 1), .text("a")]])))
        var returned: [DatabaseValue] = []
        _ = try c.execute(.insert(Insert(table: "item", columns: ["name"], rows: [[.text("b")]], returning: "id"))) {
            returned.append($0.value(at: 0))
        }
        #expect(returned == [.integer(.max)])
        #expect(throws: StrataError.self) {
            try run(c, .insert(Insert(table: "item", columns: ["name"], rows: [[.text("c")]])))
        }
        #expect(try count(c) == 2)
    }

    @Test("the slot map agrees with a dictionary over random dense runs, sparse ids, extremes and deletions")
    func slotMapModel() {
        for seed: UInt64 in 1...12 {
            var g = Seeded(state: seed)
            var map = SlotMap()
            var model: [Int64: Int] = [:]
            // A moving centre: dense runs grow from it, extremes and far ids land anywhere.
            var centre = extremes.randomElement(using: &g) ?? 0
            for step in 0..<2_000 {
                let id: Int64
                switch Int.random(in: 0..<10, using: &g) {
                case 0...3:
                    // Just past the centre: extends a dense run (or starts one).
                    let (next, overflow) = centre.addingReportingOverflow(Int64.random(in: 1...3, using: &g))
                    id = overflow ? .max : next
                    centre = id
                case 4, 5: id = extremes.randomElement(using: &g) ?? 0
                case 6: id = Int64.random(in: .min ... .max, using: &g)
                case 7:
                    id = model.keys.randomElement(using: &g) ?? 0
                default:
                    let (near, overflow) = centre.subtractingReportingOverflow(Int64.random(in: -100...100, using: &g))
                    id = overflow ? centre : near
                }
                if Bool.random(using: &g) || model[id] == nil {
                    map[id] = step
                    model[id] = step
                } else {
                    map[id] = nil
                    model[id] = nil
                }
                if step % 500 == 499 && Int.random(in: 0..<4, using: &g) == 0 {
                    map.removeAll()
                    model.removeAll()
                }
                for probe in [id, id &+ 1, id &- 1] + extremes.prefix(3) + extremes.suffix(3) {
                    #expect(map[probe] == model[probe], "seed \(seed) step \(step) id \(probe)")
                }
            }
            for (id, slot) in model { #expect(map[id] == slot, "seed \(seed) final id \(id)") }
        }
    }
}
