// ModelSource: reads an existing schema and writes the @Model declarations that map it (`strata inspect`).
import Foundation

/// Writes Swift source for the models of an existing database, as Django's `inspectdb` does.
///
/// Table and column names are kept (`@Model(table:)`, `@Column`), nullable columns become optionals, Swift types
/// follow the declared types and the stored values (a `decimal` stored as REAL is a `Decimal`; a date column's
/// form is read from a stored value and declared with `dateFormat:`), single-column foreign keys become
/// `belongsTo` and `hasMany`, and a table of an id and two foreign keys becomes `hasMany(through:)` on both
/// sides. A table keyed by several integer, text or UUID columns becomes `@Model(table:primaryKey:)` with its
/// key's properties (see ``CompositeKey``), and a foreign key of several columns to it becomes
/// `belongsTo(_:keys:)` on the child and `hasMany(_:keys:)` on the parent, the key paths in the parent key's order.
/// Any other table without a single integer primary key is listed in a comment.
public enum ModelSource {
    /// The source for every table of the database `tx` is connected to.
    ///
    /// - Throws: ``StrataError/unsupported(feature:driver:)`` on a driver that cannot list its tables.
    public static func inspect(_ tx: Transaction) throws -> String {
        var tables: [Table] = []
        var skipped: [String] = []
        for name in try tx.connection.liveTables() {
            guard let columns = try tx.liveColumns(of: name) else { continue }
            let keys = columns.filter(\.isPrimaryKey)
            let single = keys.count == 1 && keys[0].reads.contains(.integer)
            // A composite key maps when each of its columns reads into a key type (see ``CompositeKey``).
            let composite = keys.count > 1 && keys.allSatisfy { compositeKeyType($0) != nil }
            guard single || composite else {
                skipped.append(name)
                continue
            }
            var samples: [String: DatabaseValue] = [:]
            var kinds: [String: Set<StoredKind>] = [:]
            for c in columns where !c.isPrimaryKey {
                samples[c.name] = try sample(tx, table: name, column: c.name)
                if !knowsType(c) { kinds[c.name] = try storedKinds(tx, table: name, column: c.name) }
            }
            // In column order, whatever order the catalog lists them in.
            let position = { (fk: LiveForeignKey) in columns.firstIndex { $0.name == fk.column } ?? columns.count }
            let foreignKeys = try tx.connection.liveForeignKeys(of: name).sorted { position($0) < position($1) }
            tables.append(
                Table(
                    name: name, columns: columns, key: single ? keys[0].name : "", foreignKeys: foreignKeys,
                    samples: samples, kinds: kinds))
        }
        // Foreign keys of several columns, read from the introspected schema when a table has a composite key.
        if tables.contains(where: \.hasCompositeKey) {
            let schema = try tx.introspect()
            for i in tables.indices {
                tables[i].compositeForeignKeys = schema[table: tables[i].name]?.foreignKeys.filter(\.isComposite) ?? []
            }
        }
        return render(tables, skipped: skipped)
    }

    struct Table {
        let name: String
        let columns: [LiveColumn]
        /// The single key column's name, which becomes `id`; empty for a composite key.
        let key: String
        let foreignKeys: [LiveForeignKey]
        let samples: [String: DatabaseValue]
        /// The kinds of value stored in each column whose declared type says nothing Strata knows.
        var kinds: [String: Set<StoredKind>] = [:]
        /// The foreign keys of several columns (to a composite key), in the order the schema lists them.
        var compositeForeignKeys: [ForeignKey] = []

        var structName: String { ModelSource.typeName(name) }

        func property(_ column: String) -> String {
            column == key ? "id" : ModelSource.propertyName(column)
        }

        /// Whether the table's key has two or more columns.
        var hasCompositeKey: Bool { key.isEmpty }

        /// The key paths (`\Child.a`) of `fk`'s columns in the order of `parent`'s key (its `primaryKey:` list), when
        /// `fk` references exactly that key and each column's Swift type is the key column's; else nil (not mapped).
        func keyPaths(of fk: ForeignKey, to parent: Table) -> [String]? {
            let parentKey = parent.columns.filter(\.isPrimaryKey)
            guard fk.referencedTable == parent.name, parent.hasCompositeKey, fk.columns.count == parentKey.count,
                Set(fk.referencedColumns) == Set(parentKey.map(\.name))
            else { return nil }
            var paths: [String] = []
            for keyColumn in parentKey {
                guard let i = fk.referencedColumns.firstIndex(of: keyColumn.name),
                    let mine = columns.first(where: { $0.name == fk.columns[i] }), mine.name != key,
                    let theirs = ModelSource.compositeKeyType(keyColumn), printedType(mine) == theirs
                else { return nil }
                paths.append("\\\(structName).\(property(mine.name))")
            }
            return paths
        }

        /// The Swift type the model prints for a column, without its optional mark.
        func printedType(_ c: LiveColumn) -> String {
            if hasCompositeKey && c.isPrimaryKey { return ModelSource.compositeKeyType(c) ?? "String" }
            if c.isPrimaryKey { return "Int64" }
            return ModelSource.swiftType(c, sample: samples[c.name], kinds: kinds[c.name]).type
        }

        /// A link table: an id and exactly two foreign keys, nothing else.
        var link: (LiveForeignKey, LiveForeignKey)? {
            guard !hasCompositeKey, columns.count == 3, foreignKeys.count == 2 else { return nil }
            return (foreignKeys[0], foreignKeys[1])
        }
    }

    private static func sample(_ tx: Transaction, table: String, column: String) throws -> DatabaseValue? {
        var found: DatabaseValue?
        let select = Select(
            table: table, selection: .columns([column]), filter: .isNull(.column(column), negated: true), limit: 1)
        _ = try tx.execute(.select(select)) { r in found = r.value(at: 0) }
        return found
    }

    static func render(_ tables: [Table], skipped: [String]) -> String {
        var out = "import Foundation\nimport Strata\n"
        let names = Set(tables.map(\.name))
        let types = Set(
            tables.flatMap { t in
                t.columns.map { swiftType($0, sample: t.samples[$0.name], kinds: t.kinds[$0.name]).type }
            })
        for placeholder in Placeholder.allCases where types.contains(placeholder.rawValue) {
            out += "\n" + placeholder.source
        }
        let composite = Set(tables.filter(\.hasCompositeKey).map(\.name))
        for t in tables {
            var keyArgument = ""
            if t.hasCompositeKey {
                let keys = t.columns.filter(\.isPrimaryKey).map { literal(t.property($0.name)) }
                keyArgument = ", primaryKey: [" + keys.joined(separator: ", ") + "]"
            }
            out += "\n@Model(table: \(literal(t.name))\(keyArgument))\nstruct \(t.structName) {\n"
            for c in t.columns {
                if t.hasCompositeKey && c.isPrimaryKey {
                    let property = t.property(c.name)
                    let attribute = property != c.name ? "@Column(\(literal(c.name))) " : ""
                    out += "    \(attribute)var \(escaped(property)): \(compositeKeyType(c) ?? "String")\n"
                    continue
                }
                let (type, format, note) = swiftType(c, sample: t.samples[c.name], kinds: t.kinds[c.name])
                if let note, !c.isPrimaryKey { out += "    // \(commentText(c.declaredType)): \(note)\n" }
                let property = t.property(c.name)
                var arguments: [String] = []
                if property != c.name { arguments.append(literal(c.name)) }
                if let format { arguments.append("dateFormat: .\(format.rawValue)") }
                let attribute = arguments.isEmpty ? "" : "@Column(\(arguments.joined(separator: ", "))) "
                let optional = c.isPrimaryKey || c.isNullable ? "?" : ""
                out += "    \(attribute)var \(escaped(property)): \(c.isPrimaryKey ? "Int64" : type)\(optional)\n"
            }
            var used = Set(t.columns.map { t.property($0.name) })
            func unique(_ base: String) -> String {
                var name = base
                var n = 2
                while used.contains(name) {
                    name = base + String(n)
                    n += 1
                }
                used.insert(name)
                return name
            }
            // A one-column key cannot reference a composite key: not mapped (a key of several columns is, below).
            for fk in t.foreignKeys where names.contains(fk.referencedTable) && !composite.contains(fk.referencedTable)
            {
                let parent = typeName(fk.referencedTable)
                let name = unique(associationName(fk.column, parent: parent))
                out +=
                    "    static let \(escaped(name)) = belongsTo(\(parent).self, key: \\\(t.structName).\(t.property(fk.column)))\n"
            }
            // A foreign key of several columns to a table with a composite key: `keys:` in the parent key's order.
            for fk in t.compositeForeignKeys {
                guard let parent = tables.first(where: { $0.name == fk.referencedTable }),
                    let paths = t.keyPaths(of: fk, to: parent)
                else { continue }
                let name = unique(lowerFirst(parent.structName))
                out +=
                    "    static let \(escaped(name)) = belongsTo(\(parent.structName).self, keys: "
                    + paths.joined(separator: ", ") + ")\n"
            }
            for child in tables where t.hasCompositeKey {
                for fk in child.compositeForeignKeys {
                    guard let paths = child.keyPaths(of: fk, to: t) else { continue }
                    let name = unique(plural(lowerFirst(child.structName)))
                    out +=
                        "    static let \(escaped(name)) = hasMany(\(child.structName).self, keys: "
                        + paths.joined(separator: ", ") + ")\n"
                }
            }
            for child in tables where !t.hasCompositeKey {
                for fk in child.foreignKeys where fk.referencedTable == t.name {
                    let name = unique(plural(lowerFirst(child.structName)))
                    out +=
                        "    static let \(escaped(name)) = hasMany(\(child.structName).self, key: "
                        + "\\\(child.structName).\(child.property(fk.column)))\n"
                }
                guard let (a, b) = child.link else { continue }
                for (own, other) in [(a, b), (b, a)] where own.referencedTable == t.name {
                    guard let target = tables.first(where: { $0.name == other.referencedTable }) else { continue }
                    let name = unique(plural(lowerFirst(target.structName)))
                    out +=
                        "    static let \(escaped(name)) = hasMany(\n        \(target.structName).self, through: "
                        + "\(child.structName).self, ownerKey: \\\(child.structName).\(child.property(own.column)),\n"
                        + "        targetKey: \\\(child.structName).\(child.property(other.column)))\n"
                }
            }
            out += "}\n"
        }
        for name in skipped {
            out += "\n// \(commentText(name)): no single integer primary key, which a Strata model needs; not mapped.\n"
        }
        return out
    }

    /// The Swift type of a composite key's column: `Int64`, `UUID` or `String` as the column reads, else nil.
    static func compositeKeyType(_ c: LiveColumn) -> String? {
        let t = c.declaredType.lowercased()
        if c.reads.contains(.integer) && t.contains("int") { return "Int64" }
        if c.reads.contains(.uuid) && t.contains("uuid") { return "UUID" }
        if c.reads.contains(.text) && (t.contains("char") || t.contains("text") || t.contains("clob")) {
            return "String"
        }
        return nil
    }

    /// The Swift type, date form and a note for a column, from its declared type, a stored value and (for a
    /// declared type Strata does not know) the kinds of value stored. The type is always one the column reads
    /// into (``LiveColumn/reads``), so the printed model passes the checked mapping.
    static func swiftType(_ c: LiveColumn, sample: DatabaseValue?, kinds: Set<StoredKind>? = nil)
        -> (type: String, format: DateFormat?, note: String?)
    {
        let named = namedType(c, sample: sample)
        if let named, reads(c, named.0, format: named.1) { return named }
        if let kinds {
            switch kinds {
            case [], [.text]: break
            case [.integer]: return ("Int64", nil, nil)
            case [.double], [.integer, .double]: return ("Double", nil, nil)
            case [.blob]: return ("Data", nil, nil)
            default:
                return (Placeholder.stored.rawValue, nil, "values of several kinds, each read as stored")
            }
        }
        if let named, c.reads.contains(.text), named.0 != "String" {
            return ("String", nil, "read as its text")
        }
        if let named { return named }
        switch sample {
        case .integer: return ("Int64", nil, nil)
        case .double: return ("Double", nil, nil)
        case .blob: return ("Data", nil, nil)
        default: return ("String", nil, c.declaredType.isEmpty ? nil : "read as its text")
        }
    }

    /// The Swift type a declared type names, whatever the column reads into, or nil for a type Strata does not
    /// know (`geometry`, `inet`).
    private static func namedType(_ c: LiveColumn, sample: DatabaseValue?) -> (
        type: String, format: DateFormat?, note: String?
    )? {
        let t = c.declaredType.lowercased()
        if t.hasSuffix("[]") { return ("String", nil, "an array, read as its text ({1,2})") }
        if t.contains("json") { return (Placeholder.json.rawValue, nil, "kept as its JSON text") }
        if t.hasPrefix("interval") { return ("String", nil, "an interval, read as its text (1 day 02:00:00)") }
        if t.hasPrefix("time") && !t.hasPrefix("timestamp") {
            return ("String", nil, "a time of day, read as its text (10:30:00); Strata has no time type")
        }
        if t.contains("bool") { return ("Bool", nil, nil) }
        if t.contains("timestamp") || t.contains("date") || t.contains("time") {
            return ("Date", sample.flatMap(dateFormat), nil)
        }
        if t.contains("int") { return ("Int64", nil, nil) }
        if t.contains("dec") || t.hasPrefix("numeric") || t.contains("money") { return ("Decimal", nil, nil) }
        if t.contains("real") || t.contains("floa") || t.contains("doub") { return ("Double", nil, nil) }
        if t.contains("uuid") { return ("UUID", nil, nil) }
        if t.contains("char") || t.contains("clob") || t.contains("text") || t == "name" { return ("String", nil, nil) }
        if t.contains("blob") || t == "bytea" { return ("Data", nil, nil) }
        return nil
    }

    /// Whether the declared type names a Swift type the column reads into (else its stored values are sampled).
    private static func knowsType(_ c: LiveColumn) -> Bool {
        guard let named = namedType(c, sample: nil) else { return false }
        return reads(c, named.type, format: named.type == "Date" ? .strata : nil)
    }

    /// The kinds of value among the first 200 non-NULL values of a column.
    private static func storedKinds(_ tx: Transaction, table: String, column: String) throws -> Set<StoredKind> {
        var kinds = Set<StoredKind>()
        let select = Select(
            table: table, selection: .columns([column]), filter: .isNull(.column(column), negated: true), limit: 200)
        _ = try tx.execute(.select(select)) { r in
            switch r.value(at: 0) {
            case .integer, .bool: kinds.insert(.integer)
            case .double: kinds.insert(.double)
            case .blob: kinds.insert(.blob)
            case .null: break
            default: kinds.insert(.text)
            }
        }
        return kinds
    }

    /// Whether a column reads into the printed Swift type (a date with a form needs dates; the primary key is
    /// always `Int64`).
    private static func reads(_ c: LiveColumn, _ type: String, format: DateFormat?) -> Bool {
        let columnType: ColumnType? =
            switch type {
            case "Bool": .bool
            case "Date": .date
            case "Int64": .integer
            case "Decimal": .decimal
            case "Double": .double
            case "UUID": .uuid
            case "String": .text
            case "Data": .blob
            case Placeholder.json.rawValue: .json
            default: nil
            }
        guard let columnType else { return true }
        return c.isPrimaryKey || c.reads.contains(columnType) || (format != nil && c.reads.contains(.date))
    }

    /// The form a stored date value is in, or nil for a database date type (`timestamptz`).
    static func dateFormat(_ value: DatabaseValue) -> DateFormat? {
        switch value {
        case .text(let s):
            let fraction = s.contains(".")
            if s.contains("T") { return fraction ? .iso8601WithFraction : .iso8601 }
            return fraction ? .strata : .sqlDateTime
        case .integer(let i): return abs(i) >= 100_000_000_000 ? .unixMilliseconds : .unixSeconds
        case .double(let d): return d > 1_000_000 && d < 5_000_000 ? .julianDay : .unixSeconds
        default: return nil
        }
    }

    /// `invoice_line` → `InvoiceLine`, `Invoice` → `Invoice`.
    static func typeName(_ table: String) -> String {
        let parts = table.split { !$0.isLetter && !$0.isNumber }
        let name = parts.map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
        guard let first = name.first else { return "Table" }
        return first.isNumber ? "T" + name : name
    }

    /// `InvoiceDate` → `invoiceDate`, `customer_id` → `customerId`.
    static func propertyName(_ column: String) -> String {
        let name = lowerFirst(typeName(column))
        return name.isEmpty ? "column" : name
    }

    private static func associationName(_ column: String, parent: String) -> String {
        var base = propertyName(column)
        for suffix in ["Id", "ID", "id"] where base.hasSuffix(suffix) && base.count > suffix.count {
            base.removeLast(suffix.count)
            return base
        }
        return lowerFirst(parent)
    }

    private static func lowerFirst(_ s: String) -> String {
        guard let first = s.first else { return s }
        var prefix = 1
        // `URLTable` → `urlTable`: lower a leading run of capitals but its last (which starts the next word).
        let chars = Array(s)
        while prefix < chars.count, chars[prefix].isUppercase, prefix + 1 < chars.count, chars[prefix + 1].isUppercase {
            prefix += 1
        }
        if prefix == 1 { return first.lowercased() + s.dropFirst() }
        return String(chars[0..<prefix]).lowercased() + String(chars[prefix...])
    }

    private static func plural(_ s: String) -> String { s.hasSuffix("s") ? s + "es" : s + "s" }

    /// A Swift string literal of `s`: `\` and `"` escaped, and every scalar that is not printable text (controls,
    /// line and paragraph separators, bidirectional and other format characters) written as `\u{…}`, so a name
    /// cannot end the literal or the line.
    static func literal(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            default: out += isPlain(scalar) ? String(scalar) : "\\u{" + String(scalar.value, radix: 16) + "}"
            }
        }
        return out + "\""
    }

    /// Text from the schema for a `//` comment: every scalar that is not printable text written as `\u{…}` (and
    /// `\` as `\\`), so a declared type or a table name holding a newline cannot end the comment and inject code.
    static func commentText(_ s: String) -> String {
        var out = ""
        for scalar in s.unicodeScalars {
            if scalar == "\\" {
                out += "\\\\"
            } else {
                out += isPlain(scalar) ? String(scalar) : "\\u{" + String(scalar.value, radix: 16) + "}"
            }
        }
        return out
    }

    /// Whether a scalar shows as itself on one line: not a control, format, separator, private-use, surrogate or
    /// unassigned scalar (the space is plain).
    private static func isPlain(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator, .privateUse, .surrogate, .unassigned:
            return false
        case .spaceSeparator:
            return scalar == " "
        default:
            return true
        }
    }

    private static let keywords: Set<String> = [
        "class", "struct", "enum", "protocol", "func", "var", "let", "default", "case", "switch", "if", "else", "for",
        "while", "repeat", "return", "in", "is", "as", "import", "init", "self", "Self", "static", "public", "private",
        "internal", "extension", "operator", "where", "do", "catch", "throw", "throws", "try", "nil", "true", "false",
        "type", "associatedtype", "typealias", "subscript", "deinit", "break", "continue", "fallthrough", "guard",
        "defer", "inout", "super", "any", "some",
    ]

    private static func escaped(_ name: String) -> String { keywords.contains(name) ? "`\(name)`" : name }
}
