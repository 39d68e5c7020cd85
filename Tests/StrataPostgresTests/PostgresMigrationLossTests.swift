// PostgresMigrationLossTests: alterColumn keeps every value of types that do not compare equal to themselves
// once read back (real, char(n)).
import Foundation
import Strata
import StrataPostgres
import Testing

extension PostgresServerTests {
  @Suite("PostgreSQL migrations lose nothing")
  struct PostgresMigrationLossTests {
    @Test(
      "a table without a primary key whose values cannot be matched back is refused: typeMismatch, nothing changed"
    )
    func unmatchedValuesRefused() async throws {
      let db = try await PostgresTestServer.freshSchema("strata_alter_nokey")
      defer { db.close() }
      try await db.unsafeRawExecute("CREATE TABLE nk (r real, note text)")
      try await db.unsafeRawExecute("INSERT INTO nk VALUES (1.1, 'a'), (2.5, 'b'), (NULL, 'c')")
      await #expect(
        throws: StrataError.self,
        "a real 1.1 matches no float8 1.1: refused, not turned NULL"
      ) {
        try await db.migrate([
          Migration("001_retype") { $0.alterColumn("r", in: "nk", to: .decimal, nullable: true) }
        ])
      }
      do {
        try await db.migrate([
          Migration("001_retype") { $0.alterColumn("r", in: "nk", to: .decimal, nullable: true) }
        ])
      } catch let error as StrataError {
        guard case .typeMismatch(table: "nk", column: "r", _) = error else {
          Issue.record("wrong error: \(error)")
          return
        }
      }
      #expect(
        try await db.unsafeRawExecute(
          "SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = 'nk'::regclass AND attname = 'r'"
        )
          == [[.text("real")]], "the column is as it was")
      #expect(
        try await db.unsafeRawExecute("SELECT r::text, note FROM nk ORDER BY note")
          == [[.text("1.1"), .text("a")], [.text("2.5"), .text("b")], [.null, .text("c")]],
        "every value kept")
      #expect(
        try await db.migrationStatus([
          Migration("001_retype") { $0.alterColumn("r", in: "nk", to: .decimal, nullable: true) }
        ]).map(\.isApplied) == [false])
    }

    @Test(
      "alterColumn of real, char(n), numeric(p,s) and timestamptz columns keeps every value (none turns NULL)"
    )
    func alterKeepsValuesThatDoNotCompareEqual() async throws {
      let db = try await PostgresTestServer.freshSchema("strata_alter_loss")
      defer { db.close() }
      try await db.unsafeRawExecute(
        "CREATE TABLE m (id bigint PRIMARY KEY, r real, c char(5), n numeric(6,2), t timestamptz)")
      try await db.unsafeRawExecute(
        """
        INSERT INTO m VALUES (1, 1.1, 'ab', 1.10, '2024-01-02 03:04:05.678+00'), (2, 2.5, 'xyz', 2.5, NULL),
        (3, 0.3, NULL, NULL, '1999-12-31 23:59:59+00'), (4, NULL, 'q', 0.01, NULL)
        """)
      try await db.migrate([
        Migration("001_retype") { up in
          up.alterColumn("r", in: "m", to: .decimal, nullable: true)
          up.alterColumn("c", in: "m", to: .blob, nullable: true)
          up.alterColumn("n", in: "m", to: .double, nullable: true)
          up.alterColumn("t", in: "m", to: .text, nullable: true)
        }
      ])
      let rows = try await db.unsafeRawExecute("SELECT id, r::float8, c, n, t FROM m ORDER BY id")
      let reals: [Double?] = rows.map { if case .double(let d) = $0[1] { d } else { nil } }
      #expect(reals.count == 4 && reals[3] == nil, "real → decimal: \(rows)")
      for (got, want) in zip(reals, [1.1, 2.5, 0.3]) {
        #expect(got.map { abs($0 - want) < 1e-6 } == true, "real → decimal keeps \(want): \(rows)")
      }
      #expect(
        rows.map { $0[2] } == [
          .blob(Data("ab   ".utf8)), .blob(Data("xyz  ".utf8)), .null, .blob(Data("q    ".utf8)),
        ],
        "char(5) → blob: \(rows)")
      #expect(
        rows.map { $0[3] } == [.double(1.1), .double(2.5), .null, .double(0.01)], "numeric → double"
      )
      #expect(
        rows[0][4] != .null && rows[1][4] == .null && rows[2][4] != .null,
        "timestamptz → text: \(rows)")
    }
  }
}
