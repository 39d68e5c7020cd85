// ColumnPositions: where each named column sits in a table's rows.
import Strata

/// The position of each column of a table by name; the first of a repeated name (a derived table's) wins.
///
/// A table of a few columns is searched name by name: hashing each name into a dictionary cost about 400 instructions
/// a column when a fresh test database created its tables, and a lookup hashes the name again, where comparing a
/// dozen short names costs less. Past ``listLimit`` columns a dictionary answers.
struct ColumnPositions: Sendable {
    /// The names, in column order.
    private var names: [String]
    /// Each name's first position, once there are more than ``listLimit`` columns.
    private var map: [String: Int]?

    /// The columns searched name by name before a dictionary is made.
    static let listLimit = 16

    init(_ columns: [TableColumn]) {
        var names: [String] = []
        names.reserveCapacity(columns.count)
        for i in columns.indices { names.append(columns[i].name) }
        self.names = names
        if names.count > Self.listLimit { map = Self.dictionary(names) }
    }

    /// The first position of each name: filled last to first, so the first of a repeated name wins.
    private static func dictionary(_ names: [String]) -> [String: Int] {
        var map: [String: Int] = [:]
        map.reserveCapacity(names.count)
        for p in names.indices.reversed() { map[names[p]] = p }
        return map
    }

    /// The position of the column named `name`, or nil.
    subscript(_ name: String) -> Int? {
        if let map { return map[name] }
        return names.firstIndex(of: name)
    }

    /// Adds a column after the others.
    mutating func append(_ name: String) {
        names.append(name)
        if map != nil {
            if map?[name] == nil { map?[name] = names.count - 1 }
        } else if names.count > Self.listLimit {
            map = Self.dictionary(names)
        }
    }
}
