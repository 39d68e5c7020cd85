// ModelMacro: what @Model learns from the struct it is attached to: table, access level, columns, errors.
import SwiftDiagnostics
import SwiftSyntax

/// One persisted column, in declaration order.
struct PersistedProperty {
    /// The property name as written (keeps backticks), used in key paths and `self.` accesses.
    let name: String
    let column: String
    /// The initial value, used as the column default; always nil for the primary key.
    let defaultValue: ExprSyntax?
    let isConstantDefault: Bool
    var isPrimaryKey: Bool
    /// Whether @Model adds a `didSet` that marks the column changed: a `var` declared alone, without
    /// observers of its own (a `let` never changes; other columns are written on every update).
    let isTracked: Bool
    let isLet: Bool
    /// `createdAt`, `updatedAt` or `version` from `@CreatedAt`, `@UpdatedAt`, `@Version`.
    var role: String? = nil
    /// The `dateFormat:` expression of `@Column(…, dateFormat: .unixMilliseconds)`, if any.
    var dateFormat: ExprSyntax? = nil
    /// `randomized` or `deterministic` for an `@Encrypted` property; nil otherwise.
    var encryption: String? = nil
    /// Whether the property is `@Generated` (a column the database computes).
    var isGenerated = false
    /// The `default:` expression of `@Column(default: .now)`, if any.
    var databaseDefault: ExprSyntax? = nil
    /// The declared type's syntax, if annotated; its text (``type``) is made only where the source needs it.
    var typeSyntax: TypeSyntax? = nil
    /// The declared type as written (a composite key's `ID` struct repeats it), if annotated.
    var type: String? { typeSyntax?.trimmedDescription }
}

/// Everything @Model needs to know about the struct it is attached to.
struct ModelAnalysis {
    var typeName = ""
    var tableName = ""
    /// `"public "`, `"package "` or empty; prefixed to every generated member.
    var accessPrefix = ""
    var properties: [PersistedProperty] = []
    /// The property names of `@Model(primaryKey: ["a", "b"])`, in the order given; empty for `var id`.
    var compositeKey: [String] = []
    /// Static properties initialised with `hasMany(…)`, `hasOne(…)` or `belongsTo(…)`, in declaration order.
    var associations: [String] = []
    /// Whether the body declares a lifecycle callback (`willSave`, `didCreate`, …) and does not set
    /// `hasLifecycleCallbacks` itself.
    var declaresCallbacks = false
    var diagnostics: [Diagnostic] = []

    var hasErrors: Bool { !diagnostics.isEmpty }

    init(attribute: AttributeSyntax, declaration: some DeclGroupSyntax) {
        guard let structDecl = declaration.as(StructDeclSyntax.self) else {
            report(.notAStruct, at: ModelAnalysis.introducer(of: declaration))
            return
        }
        typeName = structDecl.name.text
        if let generics = structDecl.genericParameterClause {
            report(.genericStruct, at: generics)
        }
        for modifier in structDecl.modifiers {
            let kind = modifier.name.tokenKind
            if kind == .keyword(.public) || kind == .keyword(.package) {
                accessPrefix = modifier.name.text + " "
            }
        }
        tableName = resolveTableName(attribute: attribute, typeName: typeName)
        compositeKey = resolveCompositeKey(attribute: attribute)
        collectProperties(of: structDecl)
        if !compositeKey.isEmpty { markCompositeKey(attribute: attribute) }
        collectAssociations(of: structDecl)
        collectCallbacks(of: structDecl)
    }

    /// The lifecycle callbacks `Strata.Model` declares; one in the body turns `hasLifecycleCallbacks` on.
    static let callbackNames: Set<String> = [
        "willValidate", "didValidate", "willSave", "willCreate", "willUpdate", "didCreate", "didUpdate", "didSave",
        "willDelete", "didDelete",
    ]

    private mutating func collectCallbacks(of structDecl: StructDeclSyntax) {
        var declares = false
        for member in structDecl.memberBlock.members {
            if let function = member.decl.as(FunctionDeclSyntax.self),
                Self.callbackNames.contains(function.name.text)
            {
                declares = true
            }
            if let variable = member.decl.as(VariableDeclSyntax.self),
                variable.bindings.contains(where: {
                    $0.pattern.as(IdentifierPatternSyntax.self)?.identifier.text == "hasLifecycleCallbacks"
                })
            {
                return  // the struct says it itself
            }
        }
        declaresCallbacks = declares
    }

    /// Finds `static let name = hasMany(…)` (also `Self.hasMany`, `hasOne`, `belongsTo`).
    private mutating func collectAssociations(of structDecl: StructDeclSyntax) {
        let kinds: Set<String> = ["hasMany", "hasOne", "belongsTo"]
        for member in structDecl.memberBlock.members {
            guard let variable = member.decl.as(VariableDeclSyntax.self), variable.isStatic else { continue }
            for binding in variable.bindings {
                guard let pattern = binding.pattern.as(IdentifierPatternSyntax.self),
                    let call = binding.initializer?.value.as(FunctionCallExprSyntax.self)
                else { continue }
                let callee: String?
                if let ref = call.calledExpression.as(DeclReferenceExprSyntax.self) {
                    callee = ref.baseName.text
                } else if let member = call.calledExpression.as(MemberAccessExprSyntax.self) {
                    callee = member.declName.baseName.text
                } else {
                    callee = nil
                }
                if let callee, kinds.contains(callee) { associations.append(pattern.identifier.text) }
            }
        }
    }

    mutating func report(_ message: ModelDiagnostic, at node: some SyntaxProtocol) {
        let diagnostic = Diagnostic(node: Syntax(node), message: message)
        let isRepeat = diagnostics.contains {
            $0.node.id == diagnostic.node.id && $0.message == diagnostic.message
        }
        if !isRepeat {
            diagnostics.append(diagnostic)
        }
    }

    private static func introducer(of declaration: some DeclGroupSyntax) -> Syntax {
        if let decl = declaration.as(ClassDeclSyntax.self) { return Syntax(decl.introducer) }
        if let decl = declaration.as(EnumDeclSyntax.self) { return Syntax(decl.introducer) }
        if let decl = declaration.as(ActorDeclSyntax.self) { return Syntax(decl.introducer) }
        if let decl = declaration.as(ProtocolDeclSyntax.self) { return Syntax(decl.introducer) }
        if let decl = declaration.as(ExtensionDeclSyntax.self) { return Syntax(decl.introducer) }
        return Syntax(declaration)
    }

    private mutating func resolveTableName(attribute: AttributeSyntax, typeName: String) -> String {
        let arguments = attribute.arguments?.as(LabeledExprListSyntax.self) ?? []
        guard let table = arguments.first(where: { $0.label?.text == "table" }),
            !table.expression.is(NilLiteralExprSyntax.self)
        else {
            return SnakeCase.convert(typeName)
        }
        guard let name = table.expression.plainStringLiteralValue, !name.isEmpty else {
            report(.invalidTableName, at: table.expression)
            return SnakeCase.convert(typeName)
        }
        return name
    }
}
