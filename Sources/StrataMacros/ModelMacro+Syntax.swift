// ModelMacro: small syntax queries used while collecting properties (attributes, modifiers, accessors).
import SwiftSyntax

extension VariableDeclSyntax {
    var isStatic: Bool {
        modifiers.contains { $0.name.tokenKind == .keyword(.static) || $0.name.tokenKind == .keyword(.class) }
    }

    var isLazy: Bool {
        modifiers.contains { $0.name.tokenKind == .keyword(.lazy) }
    }

    func hasAttribute(named name: String) -> Bool {
        attribute(named: name) != nil
    }

    /// Finds `@Name` or `@Strata.Name`.
    func attribute(named name: String) -> AttributeSyntax? {
        for element in attributes {
            guard let attribute = element.as(AttributeSyntax.self) else { continue }
            let type = attribute.attributeName
            if let identifier = type.as(IdentifierTypeSyntax.self), identifier.name.text == name {
                return attribute
            }
            if let member = type.as(MemberTypeSyntax.self), member.name.text == name,
                member.baseType.as(IdentifierTypeSyntax.self)?.name.text == "Strata"
            {
                return attribute
            }
        }
        return nil
    }
}

extension PatternBindingSyntax {
    /// True without accessors or with only `willSet`/`didSet` observers.
    var isStored: Bool {
        switch accessorBlock?.accessors {
        case nil:
            return true
        case .getter:
            return false
        case .accessors(let accessors):
            return accessors.allSatisfy {
                let kind = $0.accessorSpecifier.tokenKind
                return kind == .keyword(.willSet) || kind == .keyword(.didSet)
            }
        }
    }
}

extension TokenSyntax {
    /// The identifier without surrounding backticks.
    var unescapedName: String {
        let text = self.text
        guard text.utf8.count >= 2, text.utf8.first == UInt8(ascii: "`"), text.utf8.last == UInt8(ascii: "`") else {
            return text
        }
        return String(text.dropFirst().dropLast())
    }
}

extension ExprSyntax {
    /// The value of a single-line string literal without interpolation, escapes or quotes in it.
    var plainStringLiteralValue: String? {
        guard let literal = self.as(StringLiteralExprSyntax.self),
            literal.openingQuote.tokenKind == .stringQuote
        else {
            return nil
        }
        var value = ""
        for segment in literal.segments {
            guard let text = segment.as(StringSegmentSyntax.self)?.content.text else { return nil }
            value += text
        }
        let forbidden: Set<Character> = ["\\", "\"", "\n", "\r"]
        return value.contains(where: forbidden.contains) ? nil : value
    }
}
