// TableName: the key a store's tables are found by: a table's name with its hash worked out once.

/// A table's name with its hash worked out when the name is made a key, so that a planned find or insert, which keeps
/// its table's key (``TemplatePlan``), finds the table without hashing the name again: hashing a `String` of a dozen
/// characters and probing cost about 350 instructions a find, most of a planned find's own work in the store.
///
/// Equal as the names are (`String`'s `==`, canonical equivalence included), and hashed as `String` hashes them, once:
/// names equal as strings have the same hash.
struct TableName: Hashable, Sendable, CustomStringConvertible {
    let name: String
    private let hash: Int

    init(_ name: String) {
        self.name = name
        hash = name.hashValue
    }

    static func == (a: TableName, b: TableName) -> Bool { a.hash == b.hash && a.name == b.name }

    func hash(into hasher: inout Hasher) { hasher.combine(hash) }

    /// The hash a `Dictionary` places the key by: the name's hash kept from ``init(_:)``, mixed with the dictionary's
    /// seed, instead of a `Hasher` run per lookup (`Hashable`'s requirement for that, which `String` implements too).
    func _rawHashValue(seed: Int) -> Int {
        // One multiply and shifts (a 64-bit mix): the seed moves every bucket, and every bit of both reaches the low
        // bits a dictionary masks its buckets from.
        var z = UInt64(bitPattern: Int64(hash ^ seed))
        z = (z ^ (z >> 32)) &* 0xD6E8_FEB8_6659_FD93
        return Int(bitPattern: UInt(z ^ (z >> 32)))
    }

    var description: String { name }
}

extension Dictionary where Key == TableName {
    /// The table named `name` (hashing the name: a caller that keeps a ``TableName`` passes that).
    subscript(_ name: String) -> Value? {
        get { self[TableName(name)] }
        _modify { yield &self[TableName(name)] }
    }

    /// The position of the table named `name`.
    func index(forKey name: String) -> Index? { index(forKey: TableName(name)) }

    /// Removes the table named `name`, returning it.
    @discardableResult
    mutating func removeValue(forKey name: String) -> Value? { removeValue(forKey: TableName(name)) }
}
