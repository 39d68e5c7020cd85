// ModelMacro: collects the persisted stored properties of a @Model struct and validates them.
import SwiftSyntax

extension ModelAnalysis {
    /// One `name: Type = value` binding of an instance `var` or `let`.
    private struct Binding {
        let variable: VariableDeclSyntax
        let binding: PatternBindingSyntax
        let pattern: IdentifierPatternSyntax
        /// The annotated type, shared across `var a, b: Int`.
        let type: TypeSyntax?
        /// The name without backticks, read once: the analysis runs for every member the macro visits, and
        /// reading a token's identifier again at each question was most of its cost in a debug build.
        let name: String

        init(
            variable: VariableDeclSyntax, binding: PatternBindingSyntax, pattern: IdentifierPatternSyntax,
            type: TypeSyntax?
        ) {
            self.variable = variable
            self.binding = binding
            self.pattern = pattern
            self.type = type
            name = pattern.identifier.unescapedName
        }

        var isID: Bool { name == "id" }
        var isLet: Bool { variable.bindingSpecifier.tokenKind == .keyword(.let) }
        var isTransient: Bool { variable.hasAttribute(named: "Transient") }
    }

    mutating func collectProperties(of structDecl: StructDeclSyntax) {
        var sawID = false
        var columnOwners: [String: String] = [:]
        for member in structDecl.memberBlock.members {
            guard let variable = member.decl.as(VariableDeclSyntax.self), !variable.isStatic else { continue }
            let bindings = Array(variable.bindings)
            for (index, binding) in bindings.enumerated() {
                guard let pattern = binding.pattern.as(IdentifierPatternSyntax.self) else {
                    if binding.isStored && !variable.hasAttribute(named: "Transient") {
                        report(.destructuringPattern, at: binding.pattern)
                    }
                    continue
                }
                let candidate = Binding(
                    variable: variable,
                    binding: binding,
                    pattern: pattern,
                    type: ModelAnalysis.declaredType(of: index, in: bindings)
                )
                sawID = sawID || candidate.isID
                guard isPersisted(candidate), let column = columnName(for: candidate) else { continue }
                if let owner = columnOwners[column] {
                    report(.duplicateColumn(column: column, first: owner, second: candidate.name), at: pattern)
                    continue
                }
                columnOwners[column] = candidate.name
                let initial = candidate.isID ? nil : binding.initializer?.value
                let dateFormat = ModelAnalysis.dateFormat(of: candidate.variable)
                properties.append(
                    PersistedProperty(
                        name: pattern.identifier.text,
                        column: column,
                        defaultValue: initial,
                        isConstantDefault: initial.map(ModelAnalysis.isConstantLiteral) ?? false,
                        isPrimaryKey: candidate.isID,
                        isTracked: !candidate.isLet && bindings.count == 1 && binding.accessorBlock == nil,
                        isLet: candidate.isLet,
                        role: role(of: candidate),
                        dateFormat: dateFormat,
                        encryption: candidate.isID ? nil : ModelAnalysis.encryption(of: candidate.variable),
                        isGenerated: !candidate.isID && candidate.variable.hasAttribute(named: "Generated"),
                        databaseDefault: candidate.isID ? nil : ModelAnalysis.databaseDefault(of: candidate.variable),
                        typeSyntax: candidate.type
                    )
                )
            }
        }
        if !sawID && compositeKey.isEmpty {
            report(.missingID, at: structDecl.name)
        } else if sawID && !compositeKey.isEmpty {
            report(
                .invalidCompositeKey("generates 'id' from the key's properties: remove 'var id'"), at: structDecl.name)
        }
    }

    /// Whether the binding becomes a column; reports what makes it invalid.
    private mutating func isPersisted(_ candidate: Binding) -> Bool {
        let binding = candidate.binding
        if candidate.isID {
            let valid =
                binding.isStored && !candidate.isLet && !candidate.isTransient
                && !candidate.variable.isLazy && candidate.type.map(ModelAnalysis.isOptionalKey) == true
            if !valid {
                report(.invalidID, at: binding)
            }
            return valid
        }
        guard binding.isStored else { return false }
        if candidate.isTransient {
            let startsNil = !candidate.isLet && candidate.type.map(ModelAnalysis.isOptional) == true
            if binding.initializer == nil && !startsNil {
                report(.transientWithoutValue, at: candidate.pattern)
            }
            return false
        }
        if candidate.variable.isLazy {
            return false
        }
        if candidate.isLet && binding.initializer != nil {
            report(.letWithInitialValue, at: candidate.pattern)
            return false
        }
        if let type = candidate.type, ModelAnalysis.isNeverStorable(type) {
            report(.unstorableType(property: candidate.name, type: type.trimmedDescription), at: type)
            return false
        }
        return true
    }

    /// The role `@CreatedAt`, `@UpdatedAt` or `@Version` gives the property; reports a wrong type or a `let`.
    private mutating func role(of candidate: Binding) -> String? {
        let roles = [
            ("CreatedAt", "createdAt"), ("UpdatedAt", "updatedAt"), ("Version", "version"), ("DeletedAt", "deletedAt"),
        ]
        guard let (attribute, role) = roles.first(where: { candidate.variable.hasAttribute(named: $0.0) }) else {
            return nil
        }
        var type = String((candidate.type?.trimmedDescription ?? "").filter { $0 != " " })
        if candidate.type == nil, let initial = candidate.binding.initializer?.value {  // `= Date()`, `= 0`
            if let call = initial.as(FunctionCallExprSyntax.self) {
                type = call.calledExpression.trimmedDescription
            } else if initial.is(IntegerLiteralExprSyntax.self) {
                type = "Int"
            }
        }
        let allowed =
            role == "version"
            ? ["Int", "Int64"]
            : role == "deletedAt"
                ? ["Date?", "Optional<Date>", "Foundation.Date?"]
                : ["Date", "Date?", "Optional<Date>", "Foundation.Date"]
        if candidate.isLet || !allowed.contains(type) {
            report(.invalidRoleType(attribute: attribute, expected: allowed[0]), at: candidate.pattern)
            return nil
        }
        return role
    }

    /// The `@Column("…")` name, or the snake_case property name; nil (after reporting) when invalid.
    private mutating func columnName(for candidate: Binding) -> String? {
        guard let attribute = candidate.variable.attribute(named: "Column") else {
            return SnakeCase.convert(candidate.name)
        }
        guard case .argumentList(let all) = attribute.arguments else {
            report(.invalidColumnName, at: attribute)
            return nil
        }
        let arguments = all.filter { $0.label?.text != "dateFormat" && $0.label?.text != "default" }
        if arguments.isEmpty && all.count == 1 {  // `@Column(dateFormat: …)` keeps the snake_case name
            return SnakeCase.convert(candidate.name)
        }
        guard arguments.count == 1, let argument = arguments.first, argument.label == nil else {
            report(.invalidColumnName, at: attribute)
            return nil
        }
        guard let name = argument.expression.plainStringLiteralValue, !name.isEmpty else {
            report(.invalidColumnName, at: argument.expression)
            return nil
        }
        return name
    }

    /// `deterministic` for `@Encrypted(.deterministic)`, `randomized` for `@Encrypted`, nil without the attribute.
    static func encryption(of variable: VariableDeclSyntax) -> String? {
        guard let attribute = variable.attribute(named: "Encrypted") else { return nil }
        guard case .argumentList(let arguments) = attribute.arguments, let first = arguments.first else {
            return "randomized"
        }
        return first.expression.trimmedDescription.hasSuffix("deterministic") ? "deterministic" : "randomized"
    }

    /// The `default:` argument of the property's `@Column` (a ``DatabaseDefault``), if any.
    static func databaseDefault(of variable: VariableDeclSyntax) -> ExprSyntax? {
        guard let attribute = variable.attribute(named: "Column"),
            case .argumentList(let arguments) = attribute.arguments
        else { return nil }
        return arguments.first { $0.label?.text == "default" }?.expression
    }

    /// The `dateFormat:` argument of the property's `@Column`, if any.
    static func dateFormat(of variable: VariableDeclSyntax) -> ExprSyntax? {
        guard let attribute = variable.attribute(named: "Column"),
            case .argumentList(let arguments) = attribute.arguments
        else { return nil }
        return arguments.first { $0.label?.text == "dateFormat" }?.expression
    }

    /// The type annotation of a binding; in `var a, b: Int` the `a` binding takes the later annotation.
    private static func declaredType(of index: Int, in bindings: [PatternBindingSyntax]) -> TypeSyntax? {
        if let type = bindings[index].typeAnnotation?.type { return type }
        guard bindings[index].initializer == nil else { return nil }
        for later in bindings[(index + 1)...] {
            if let type = later.typeAnnotation?.type { return type }
            if later.initializer != nil { return nil }
        }
        return nil
    }
}
