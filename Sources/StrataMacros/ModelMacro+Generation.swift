// ModelMacro: renders the Strata.Model extension source for an analysed struct.

extension ModelAnalysis {
    func extensionSource(for type: String, addingConformance: Bool) -> String {
        let access = accessPrefix
        var lines = ["extension \(type)\(addingConformance ? ": Strata.Model" : "") {"]

        lines.append("    \(access)static let schema = Strata.TableSchema(name: \"\(tableName)\", columns: [")
        for property in properties {
            lines.append("        \(tableColumn(property, of: type)),")
        }
        lines.append("    ])")

        // columnName(for:) and keyPath(forColumn:) come from Strata.Model's defaults, which read the schema's key
        // paths: two switches per model cost more to compile than the lookups cost to run.

        if !associations.isEmpty {
            let list = associations.map { "\(type).\($0)" }.joined(separator: ", ")
            lines.append("    \(access)static var associations: [any Strata.ModelAssociation<\(type)>] { [\(list)] }")
        }

        if !compositeKey.isEmpty {
            lines += compositeKeyLines(access: access)
        }

        if declaresCallbacks {
            lines.append("    \(access)static var hasLifecycleCallbacks: Bool { true }")
        }

        lines += rowInitializerLines(access: access)

        // What an insert binds, appended to the array its transaction keeps: no array of its own per insert.
        // `databaseValues` is made from it: one list of the properties per model to parse and compile, not two.
        lines.append(
            "    \(access)var databaseValues: [Strata.DatabaseValue] { _databaseValuesAppended() }")
        lines.append("    \(access)func appendDatabaseValues(to values: inout [Strata.DatabaseValue]) {")
        for property in properties { lines.append("        values.append(\(storedValue(property)))") }
        lines.append("    }")

        lines.append("}")
        return lines.joined(separator: "\n")
    }

    /// The value a property stores: its `databaseValue`, in its column's date format when it declares one.
    private func storedValue(_ property: PersistedProperty) -> String {
        let value = "self.\(property.name).databaseValue"
        guard let format = property.dateFormat else { return value }
        return "(\(format.trimmedDescription) as Strata.DateFormat).stored(\(value))"
    }

    /// `init(row:)`. When every persisted property's type is written out, the values are decoded as the arguments of
    /// an initializer that takes them all (`init(_strataDecodedRow:_:…)`): a throwing initializer that assigns
    /// a model's observed (change-tracked) properties one by one copies the whole model once at its end (the
    /// optimizer keeps a copy of `self` and destroys the original: about 300 instructions a row for ten columns),
    /// one that delegates does not. Otherwise (a type left to inference) each property is assigned in turn.
    func rowInitializerLines(access: String) -> [String] {
        let reads = properties.enumerated().map { index, property in
            let defaultArgument = property.defaultValue.map { ", default: \($0.trimmedDescription)" } ?? ""
            let formatArgument =
                property.encryption.map { ", encrypted: .\($0)" }
                ?? property.dateFormat.map { ", dateFormat: \($0.trimmedDescription)" } ?? ""
            return "row.decode(\(index)\(formatArgument)\(defaultArgument))"
        }
        var lines = ["    \(access)init(row: Strata.Row) throws(Strata.StrataError) {"]
        let types = properties.compactMap(\.type)
        guard !properties.isEmpty, types.count == properties.count else {
            for (property, read) in zip(properties, reads) {
                lines.append("        self.\(property.name) = try \(read)")
            }
            lines.append("    }")
            return lines
        }
        lines.append("        try self.init(")
        lines.append("            _strataDecodedRow: (),")
        for (n, read) in reads.enumerated() { lines.append("            \(read)\(n + 1 < reads.count ? "," : "")") }
        lines.append("        )")
        lines.append("    }")
        let parameters = types.enumerated().map { n, type in "_ v\(n): \(type)" }.joined(separator: ", ")
        lines.append("    init(_strataDecodedRow: Void, \(parameters)) {")
        for (n, property) in properties.enumerated() { lines.append("        self.\(property.name) = v\(n)") }
        lines.append("    }")
        return lines
    }

    private func tableColumn(_ property: PersistedProperty, of type: String) -> String {
        var column = plainTableColumn(property, of: type)
        if let d = property.databaseDefault {
            column += ".defaulted(\(d.trimmedDescription) as Strata.DatabaseDefault)"
        }
        if property.isGenerated { column += ".generated()" }
        // A value the database computes is read back after a write: set by a plain assignment, where a key path's
        // cost a generic metadata lookup and a projection per value.
        let readBack = property.isGenerated || property.databaseDefault != nil
        if readBack && !property.isLet && property.dateFormat == nil && property.encryption == nil {
            column +=
                ".readBack { (model: inout \(type), row: Strata.Row, column: Int) throws(Strata.StrataError) in "
                + "model.\(property.name) = try row.decode(column) }"
        }
        return column
    }

    private func plainTableColumn(_ property: PersistedProperty, of type: String) -> String {
        var arguments = "\\\(type).\(property.name), \"\(property.column)\""
        if property.isPrimaryKey {
            arguments += ", primaryKey: true"
        } else if let defaultValue = property.defaultValue {
            arguments += ", default: \(defaultValue.trimmedDescription), constant: \(property.isConstantDefault)"
        }
        if !property.isTracked && !property.isLet {
            arguments += ", tracked: false"
        }
        if let role = property.role {
            arguments += ", role: .\(role)"
        }
        if let mode = property.encryption {
            return "Strata.TableColumn(\(arguments)).encrypted(.\(mode))"
        }
        if let format = property.dateFormat {
            return "Strata.TableColumn(\(arguments)).storing(dates: \(format.trimmedDescription))"
        }
        return "Strata.TableColumn(\(arguments))"
    }
}
