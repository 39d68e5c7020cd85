// MemoryURLTests: memory: URLs accept pool and migrate only, spelled exactly.
import Strata
import StrataMemory
import Testing

@Suite("Memory URLs")
struct MemoryURLTests {
    @Test(
        "a parameter the memory driver does not read is refused by name",
        arguments: [
            (
                "memory:?Pool=8",
                "unknown parameter 'Pool' for memory URLs (parameter names are case-sensitive: did you mean 'pool'?)"
            ),
            ("memory:shop?sslmode=require", "unknown parameter 'sslmode' for memory URLs (accepted: migrate, pool)"),
            ("memory:?pool=2&x=", "unknown parameter 'x'"),
        ])
    func unknownParameter(_ url: String, _ reason: String) {
        #expect {
            try Database.open(url, drivers: [.memory])
        } throws: { error in
            guard case StrataError.invalidURL(let u, let why) = error else { return false }
            return u == url && why == reason || why.contains(reason)
        }
    }

    @Test("pool and migrate are accepted, and a NUL in the store name is refused")
    func known() throws {
        let db = try Database.open("memory:?pool=2&migrate=off", drivers: [.memory])
        #expect(db.configuration.maxConnections == 2 && db.configuration.migration == .disabled)
        #expect(throws: StrataError.self) { try Database.open("memory:a%00b", drivers: [.memory]) }
    }
}
