// ModelMacro: syntactic classification of property types and initial values.
import SwiftSyntax

extension ModelAnalysis {
    /// `Int64?`, `UUID?` or `String?` (a `PrimaryKey` type), also as `Optional<…>`, optionally spelled with `Swift.`.
    static func isOptionalKey(_ type: TypeSyntax) -> Bool {
        let wrapped: TypeSyntax
        if let optional = type.as(OptionalTypeSyntax.self) {
            wrapped = optional.wrappedType
        } else if let arguments = genericArguments(ofNamed: "Optional", type), arguments.count == 1,
            case .type(let argument) = arguments.first?.argument
        {
            wrapped = argument
        } else {
            return false
        }
        return ["Int64", "UUID", "String"].contains { isNamed(wrapped, $0) }
    }

    /// `T?`, `T!` or `Optional<T>`: a `var` of such a type starts out as nil.
    static func isOptional(_ type: TypeSyntax) -> Bool {
        type.is(OptionalTypeSyntax.self) || type.is(ImplicitlyUnwrappedOptionalTypeSyntax.self)
            || genericArguments(ofNamed: "Optional", type) != nil
    }

    /// Tuples, functions, metatypes and existential or opaque types can never be a column value,
    /// nor can optionals or collections of them.
    static func isNeverStorable(_ type: TypeSyntax) -> Bool {
        if type.is(FunctionTypeSyntax.self) || type.is(SomeOrAnyTypeSyntax.self)
            || type.is(MetatypeTypeSyntax.self) || type.is(CompositionTypeSyntax.self)
        {
            return true
        }
        if let tuple = type.as(TupleTypeSyntax.self) {
            if tuple.elements.count == 1, let only = tuple.elements.first,
                only.firstName == nil, only.ellipsis == nil
            {
                return isNeverStorable(only.type)
            }
            return true
        }
        if let attributed = type.as(AttributedTypeSyntax.self) {
            return isNeverStorable(attributed.baseType)
        }
        if let optional = type.as(OptionalTypeSyntax.self) {
            return isNeverStorable(optional.wrappedType)
        }
        if let optional = type.as(ImplicitlyUnwrappedOptionalTypeSyntax.self) {
            return isNeverStorable(optional.wrappedType)
        }
        if let array = type.as(ArrayTypeSyntax.self) {
            return isNeverStorable(array.element)
        }
        if let dictionary = type.as(DictionaryTypeSyntax.self) {
            return isNeverStorable(dictionary.key) || isNeverStorable(dictionary.value)
        }
        if let identifier = type.as(IdentifierTypeSyntax.self), identifier.genericArgumentClause == nil {
            return identifier.name.text == "Any" || identifier.name.text == "Void"
        }
        return false
    }

    /// Literals whose value never changes: numbers (optionally negated), booleans, nil,
    /// strings without interpolation, and array or dictionary literals made only of those.
    static func isConstantLiteral(_ expr: ExprSyntax) -> Bool {
        if expr.is(IntegerLiteralExprSyntax.self) || expr.is(FloatLiteralExprSyntax.self)
            || expr.is(BooleanLiteralExprSyntax.self) || expr.is(NilLiteralExprSyntax.self)
        {
            return true
        }
        if let string = expr.as(StringLiteralExprSyntax.self) {
            return string.segments.allSatisfy { $0.is(StringSegmentSyntax.self) }
        }
        if let prefix = expr.as(PrefixOperatorExprSyntax.self), prefix.operator.text == "-" {
            return prefix.expression.is(IntegerLiteralExprSyntax.self)
                || prefix.expression.is(FloatLiteralExprSyntax.self)
        }
        if let array = expr.as(ArrayExprSyntax.self) {
            return array.elements.allSatisfy { isConstantLiteral($0.expression) }
        }
        if let dictionary = expr.as(DictionaryExprSyntax.self) {
            switch dictionary.content {
            case .colon:
                return true
            case .elements(let elements):
                return elements.allSatisfy { isConstantLiteral($0.key) && isConstantLiteral($0.value) }
            }
        }
        return false
    }

    /// `Name` or `Swift.Name` without generic arguments.
    private static func isNamed(_ type: TypeSyntax, _ name: String) -> Bool {
        if let identifier = type.as(IdentifierTypeSyntax.self) {
            return identifier.name.text == name && identifier.genericArgumentClause == nil
        }
        if let member = type.as(MemberTypeSyntax.self) {
            return member.name.text == name && member.genericArgumentClause == nil
                && member.baseType.as(IdentifierTypeSyntax.self)?.name.text == "Swift"
        }
        return false
    }

    /// The generic arguments of `Name<…>` or `Swift.Name<…>`.
    private static func genericArguments(ofNamed name: String, _ type: TypeSyntax) -> GenericArgumentListSyntax? {
        if let identifier = type.as(IdentifierTypeSyntax.self), identifier.name.text == name {
            return identifier.genericArgumentClause?.arguments
        }
        if let member = type.as(MemberTypeSyntax.self), member.name.text == name,
            member.baseType.as(IdentifierTypeSyntax.self)?.name.text == "Swift"
        {
            return member.genericArgumentClause?.arguments
        }
        return nil
    }
}
