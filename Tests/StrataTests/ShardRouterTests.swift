// ShardRouterTests: the key-to-shard mapping is pinned: the same key maps to the same shard in every process.
import Foundation
import Strata
import Testing

@Suite("Shard router")
struct ShardRouterTests {
    /// Computed independently (FNV-1a 64 and jump consistent hash in Python) for 1, 2, 3, 4 and 10 shards.
    @Test(
        "pinned shards of known keys",
        arguments: [
            (DatabaseValue.integer(42), [0, 1, 1, 1, 4]),
            (.integer(0), [0, 0, 0, 0, 9]),
            (.integer(1), [0, 0, 0, 3, 3]),
            (.integer(-1), [0, 1, 1, 1, 8]),
            (.integer(7), [0, 1, 2, 2, 2]),
            (.text("acme"), [0, 1, 1, 1, 1]),
            (.text(""), [0, 1, 2, 2, 7]),
            (.text("é"), [0, 1, 2, 2, 7]),
        ])
    func pinned(_ key: DatabaseValue, _ shards: [Int]) throws {
        #expect(try [1, 2, 3, 4, 10].map { try ShardRouter.shard(for: key, count: $0) } == shards)
    }

    @Test("growing from N to N+1 shards moves keys only to the new shard, about 1/(N+1) of them")
    func consistent() throws {
        for n in 1...8 {
            var moved = 0
            for key in 0..<2_000 {
                let before = try ShardRouter.shard(for: .integer(Int64(key)), count: n)
                let after = try ShardRouter.shard(for: .integer(Int64(key)), count: n + 1)
                if before != after {
                    #expect(after == n)
                    moved += 1
                }
            }
            let expected = 2_000 / (n + 1)
            #expect(abs(moved - expected) < expected / 4 + 40, "\(n) → \(n + 1): \(moved) moved")
        }
    }

    @Test("a key of a kind with several stored spellings is refused typed")
    func refusals() {
        for value in [DatabaseValue.null, .double(1), .bool(true), .date(Date(timeIntervalSince1970: 0)), .decimal(1)] {
            #expect(throws: StrataError.self) { try ShardRouter.shard(for: value, count: 2) }
        }
        #expect((try? ShardRouter.shard(for: .uuid(UUID()), count: 3)).map { (0..<3).contains($0) } == true)
        #expect((try? ShardRouter.shard(for: .blob(Data([1, 2])), count: 3)).map { (0..<3).contains($0) } == true)
    }
}
