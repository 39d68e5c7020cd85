// PostgresBindFormatTests: integers and doubles sent in binary reach the server exactly, and templates keep per shape.
import Foundation
import Strata
import StrataPostgres
import Testing

@Model(table: "pg_bind_edge")
struct PGBindEdge {
    var id: Int64?
    var whole: Int64
    var small: Int16
    var real: Float
    var wide: Double
}

extension PostgresServerTests {
    @Suite("PostgreSQL binary parameters")
    struct PostgresBindFormatTests {
        static let wholes: [Int64] = [.min, .min + 1, -1, 0, 1, 255, 256, 65_536, .max - 1, .max]
        static let doubles: [Double] = [
            0, 0.1, -1.5, 0x1p-1030, .leastNonzeroMagnitude, -.leastNonzeroMagnitude, .greatestFiniteMagnitude,
            -.greatestFiniteMagnitude, .infinity, -.infinity, 9_007_199_254_740_994, .pi,
        ]

        @Test("integers and doubles at their edges are stored as sent, read back, and found by the same value")
        func edges() async throws {
            let db = try await PostgresTestServer.freshSchema("strata_bind_edge")
            defer { db.close() }
            try await db.migrate(PGBindEdge.self)
            var saved: [PGBindEdge] = []
            for (n, whole) in Self.wholes.enumerated() {
                let wide = Self.doubles[n % Self.doubles.count]
                var edge = PGBindEdge(
                    whole: whole, small: Int16(truncatingIfNeeded: whole), real: Float(wide), wide: wide)
                try await edge.save(on: db)
                saved.append(edge)
            }
            for edge in saved {
                let found = try #require(try await PGBindEdge.find(edge.id ?? -1, on: db))
                #expect(found.whole == edge.whole)
                #expect(found.small == edge.small)
                // Equal, and bit for bit but for a zero's sign (-0.0 is stored as 0.0, see below).
                #expect(found.real == edge.real && (found.real != 0 || found.real.sign == .plus))
                #expect(found.wide == edge.wide && (found.wide != 0 || found.wide.sign == .plus))
                if edge.wide != 0 { #expect(found.wide.bitPattern == edge.wide.bitPattern) }
                // The server compares its stored value with the bound one: equal bits, or no row.
                let byWhole = try await PGBindEdge.query(on: db).where(\.whole == edge.whole).all()
                #expect(byWhole.map(\.id) == [edge.id])
                let byWide = try await PGBindEdge.query(on: db).where(\.wide == edge.wide).all()
                #expect(byWide.contains { $0.id == edge.id })
            }
            // The server's own text of what it stored, for values whose spelling is certain.
            let text = try await db.withConnection { tx in
                try tx.unsafeRawExecute(#"SELECT CAST("whole" AS TEXT) FROM "pg_bind_edge" ORDER BY "id""#)
            }
            #expect(text.first?.first == .text("-9223372036854775808"))
            #expect(text.last?.first == .text("9223372036854775807"))
        }

        @Test("-0.0 is stored as 0.0 and found by -0.0 or 0.0")
        func negativeZero() async throws {
            let db = try await PostgresTestServer.freshSchema("strata_bind_sign")
            defer { db.close() }
            try await db.migrate(PGBindEdge.self)
            var negativeZero = PGBindEdge(whole: 1, small: 1, real: -0.0, wide: -0.0)
            try await negativeZero.save(on: db)
            let found = try #require(try await PGBindEdge.find(negativeZero.id ?? -1, on: db))
            #expect(found.wide.bitPattern == (0.0 as Double).bitPattern)
            #expect(found.real.bitPattern == (0.0 as Float).bitPattern)
            // Found by a bound -0.0 too: the server compares the stored 0.0 with the 0.0 sent.
            let byZero = try await PGBindEdge.query(on: db).where(\.wide == -0.0).all()
            #expect(byZero.map(\.id) == [negativeZero.id])
            let after = try #require(try await PGBindEdge.find(negativeZero.id ?? -1, on: db))
            #expect(after.whole == 1 && after.small == 1)
        }
    }
}
