// MigrationStepTests: step checksums (stable across runs, changed by edits) and the value conversions of a type change.
import Foundation
import Strata
import Testing

@Model(table: "stamped_thing")
struct StampedThing {
    var id: Int64?
    var name: String
    var seenAt = Date()  // evaluated anew each time the schema is built
}

@Suite("Versioned migration steps")
struct MigrationStepTests {
    @Test("a step's checksum is the same in another process, though a default is evaluated anew there (Date())")
    func checksumStableAcrossProcesses() async throws {
        let here = Migration("001") { $0.createTable(for: StampedThing.self) }.checksum
        try await Task.sleep(for: .milliseconds(5))
        await #expect(processExitsWith: .success) { [here = here as String] in
            let there = Migration("001") { $0.createTable(for: StampedThing.self) }.checksum
            exit(there == here ? 0 : 1)
        }
    }

    @Test("a step's checksum changes with its operations, its down included")
    func checksumFollowsOperations() {
        let first = Migration("001") { $0.createTable(for: StampedThing.self) }.checksum
        let edited = Migration("001") { up in
            up.createTable(for: StampedThing.self)
            up.addIndex(on: "stamped_thing", ["name"])
        }.checksum
        #expect(edited != first)
        let withDown = Migration("001", up: { $0.createTable(for: StampedThing.self) }, down: { $0.dropTable("x") })
        #expect(withDown.checksum != first, "the down counts too")
        #expect(first.count == 16 && first.allSatisfy(\.isHexDigit))
    }

    @Test("type-change conversions: exact ones pass, the rest are refused")
    func conversions() {
        #expect(ValueConversion.convert(.text("42"), to: .integer) == .integer(42))
        #expect(ValueConversion.convert(.text("abc"), to: .integer) == nil)
        #expect(ValueConversion.convert(.text(" 42"), to: .integer) == nil)
        #expect(ValueConversion.convert(.double(2), to: .integer) == .integer(2))
        #expect(ValueConversion.convert(.double(1.5), to: .integer) == nil)
        #expect(ValueConversion.convert(.double(1e300), to: .integer) == nil)
        #expect(ValueConversion.convert(.integer(7), to: .text) == .text("7"))
        #expect(ValueConversion.convert(.bool(true), to: .text) == .text("true"))
        #expect(ValueConversion.convert(.text("1"), to: .bool) == .bool(true))
        #expect(ValueConversion.convert(.integer(2), to: .bool) == nil)
        #expect(ValueConversion.convert(.text("12abc"), to: .decimal) == nil)
        #expect(ValueConversion.convert(.text("12.50"), to: .decimal) == .decimal(Decimal(string: "12.50") ?? 0))
        #expect(ValueConversion.convert(.text("{\"a\": 1}"), to: .json) == .json("{\"a\": 1}"))
        #expect(ValueConversion.convert(.text("{oops"), to: .json) == nil)
        #expect(ValueConversion.convert(.blob(Data([1])), to: .text) == nil)
        #expect(ValueConversion.convert(.null, to: .integer) == .null)
        #expect(ValueConversion.normalize(.integer(1), as: .bool) == .bool(true))
    }
}

/// A step written as a type.
enum AddNickname: MigrationStep {
    static let name = "002_nickname"
    static func up(_ up: inout MigrationSteps) { up.addColumn("nickname", .text, nullable: true, to: "stamped_thing") }
    static let down: (@Sendable (inout MigrationSteps) -> Void)? = { $0.dropColumn("nickname", from: "stamped_thing") }
}

/// A step without a down.
enum DropNickname: MigrationStep {
    static let name = "003_drop_nickname"
    static func up(_ up: inout MigrationSteps) { up.dropColumn("nickname", from: "stamped_thing") }
}

@Suite("Migration steps as types")
struct MigrationStepTypeTests {
    @Test("a step type is the same step as the value it spells")
    func sameAsValue() {
        let value = Migration("002_nickname") { up in
            up.addColumn("nickname", .text, nullable: true, to: "stamped_thing")
        } down: { down in
            down.dropColumn("nickname", from: "stamped_thing")
        }
        #expect(Migration(AddNickname.self).checksum == value.checksum)
        #expect(Migration(AddNickname.self).name == "002_nickname")
        #expect(Migration(DropNickname.self).down == nil)
        #expect(Migration(DropNickname.self).up.map(\.description) == ["drop column stamped_thing.nickname"])
    }
}
