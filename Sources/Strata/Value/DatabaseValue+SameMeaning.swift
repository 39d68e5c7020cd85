// DatabaseValue+SameMeaning: whether two backends' values for one column mean the same, storage aside.
import Foundation

extension DatabaseValue {
    /// Whether `self` and `other`, read from the same column on two backends, hold the same value once
    /// what differs only in storage is decoded: a bool as 0/1, a date, decimal or UUID as text, JSON's
    /// spacing and key order. Exact otherwise: doubles bit for bit (-0.0 is not 0.0), text scalar for
    /// scalar ("é" is not "e\u{301}"), dates to the microsecond, decimals by value.
    public func hasSameMeaning(as other: DatabaseValue) -> Bool {
        switch (self, other) {
        case (.null, .null): return true
        case (.null, _), (_, .null): return false
        case (.integer(let a), .integer(let b)): return a == b
        case (.double(let a), .double(let b)): return a.bitPattern == b.bitPattern || (a.isNaN && b.isNaN)
        case (.text(let a), .text(let b)): return a.unicodeScalars.elementsEqual(b.unicodeScalars)
        case (.blob(let a), .blob(let b)): return a == b
        case (.bool(let a), .bool(let b)): return a == b
        case (.bool(let a), .integer(let b)), (.integer(let b), .bool(let a)): return b == (a ? 1 : 0)
        case (.date(let a), .date(let b)): return Self.micros(a) == Self.micros(b)
        case (.date(let a), .text(let b)), (.text(let b), .date(let a)):
            return DateText.parse(b).map { Self.micros($0) == Self.micros(a) } ?? false
        case (.decimal(let a), .decimal(let b)): return a == b
        case (.decimal(let a), .text(let b)), (.text(let b), .decimal(let a)):
            return Decimal(string: b, locale: Locale(identifier: "en_US_POSIX")) == a
        case (.uuid(let a), .uuid(let b)): return a == b
        case (.uuid(let a), .text(let b)), (.text(let b), .uuid(let a)): return UUID(uuidString: b) == a
        case (.json(let a), .json(let b)), (.json(let a), .text(let b)), (.text(let a), .json(let b)):
            return a == b || Self.canonicalJSON(a).map { $0 == Self.canonicalJSON(b) } ?? false
        default: return false
        }
    }

    private static func micros(_ d: Date) -> Int64 { Int64((d.timeIntervalSince1970 * 1_000_000).rounded()) }

    private static func canonicalJSON(_ text: String) -> Data? {
        guard let data = text.data(using: .utf8),
            let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        else { return nil }
        return try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .fragmentsAllowed])
    }
}
