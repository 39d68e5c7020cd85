// ModelMacro: reads `@Model(primaryKey: ["a", "b"])` and writes the composite key's `ID` struct and `id` property.
import SwiftSyntax

extension ModelAnalysis {
    /// The string literals of `primaryKey: ["a", "b"]`.
    mutating func resolveCompositeKey(attribute: AttributeSyntax) -> [String] {
        let arguments = attribute.arguments?.as(LabeledExprListSyntax.self) ?? []
        guard let argument = arguments.first(where: { $0.label?.text == "primaryKey" }) else { return [] }
        guard let array = argument.expression.as(ArrayExprSyntax.self) else {
            report(.invalidCompositeKey("needs an array literal of the key properties' names"), at: argument)
            return []
        }
        var names: [String] = []
        for element in array.elements {
            guard let name = element.expression.plainStringLiteralValue, !name.isEmpty else {
                report(.invalidCompositeKey("needs the key properties' names as string literals"), at: element)
                return []
            }
            if names.contains(name) {
                report(.invalidCompositeKey("names '\(name)' twice"), at: element)
                return []
            }
            names.append(name)
        }
        if names.isEmpty { return [] }
        if names.count < 2 {
            report(.invalidCompositeKey("needs two or more properties; a one-column key is 'var id'"), at: attribute)
            return []
        }
        return names
    }

    /// Marks the key's properties primary-key columns; reports a name that is not a stored, typed,
    /// non-optional `var` of the struct.
    mutating func markCompositeKey(attribute: AttributeSyntax) {
        for name in compositeKey {
            guard let i = properties.firstIndex(where: { $0.name == name }) else {
                report(
                    .invalidCompositeKey("names '\(name)', which is not a stored property of the struct"), at: attribute
                )
                continue
            }
            let p = properties[i]
            let optional = p.type.map { $0.hasSuffix("?") || $0.hasPrefix("Optional<") } ?? false
            if p.isLet || !p.isTracked || p.type == nil || optional || p.isGenerated || p.encryption != nil
                || p.role != nil || p.dateFormat != nil
            {
                report(
                    .invalidCompositeKey(
                        "'\(name)' must be a plain stored 'var' with a non-optional type annotation "
                            + "(Int64, Int, String or UUID)"),
                    at: attribute)
                continue
            }
            properties[i].isPrimaryKey = true
        }
    }

    /// The `ID` struct and the computed `id` of a model with a composite key, inside the Model extension.
    func compositeKeyLines(access: String) -> [String] {
        let keys = compositeKey.compactMap { name in properties.first { $0.name == name } }
        var lines = ["    \(access)struct ID: Strata.CompositeKey {"]
        for key in keys { lines.append("        \(access)var \(key.name): \(key.type ?? "Never")") }
        let parameters = keys.map { "\($0.name): \($0.type ?? "Never")" }.joined(separator: ", ")
        lines.append("        \(access)init(\(parameters)) {")
        for key in keys { lines.append("            self.\(key.name) = \(key.name)") }
        lines.append("        }")
        let values = keys.map { "self.\($0.name).databaseValue" }.joined(separator: ", ")
        lines.append("        \(access)var keyValues: [Strata.DatabaseValue] { [\(values)] }")
        lines.append("        \(access)func appendKeyValues(to values: inout [Strata.DatabaseValue]) {")
        for key in keys { lines.append("            values.append(self.\(key.name).databaseValue)") }
        lines.append("        }")
        let columns = keys.map { "\"\($0.column)\"" }.joined(separator: ", ")
        lines.append("        \(access)static var keyColumns: [String] { [\(columns)] }")
        lines.append("    }")
        let arguments = keys.map { "\($0.name): self.\($0.name)" }.joined(separator: ", ")
        lines.append("    \(access)var id: ID? {")
        lines.append("        get { ID(\(arguments)) }")
        lines.append("        set {")
        lines.append("            guard let newValue else { return }")
        for key in keys {
            lines.append(
                "            if self.\(key.name) != newValue.\(key.name) { self.\(key.name) = newValue.\(key.name) }")
        }
        lines.append("        }")
        lines.append("    }")
        return lines
    }
}
