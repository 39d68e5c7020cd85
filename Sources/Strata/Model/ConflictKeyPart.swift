// ConflictKeyPart: one value of an upsert's conflict target, compared and hashed as a unique index compares it.
import Foundation

/// A non-NULL value of a one-column conflict target as the unique index compares it: text by its UTF-8 bytes
/// (two spellings Swift's `String` finds equal are two keys to the database), dates to the microsecond, the
/// rest as ``DatabaseValue`` compares them. `upsertAll` finds two models with one key through a set of these,
/// making no array or `Data` per model.
struct ConflictKeyPart: Hashable {
    let value: DatabaseValue

    /// The part for `value`, or nil for NULL (NULLs never conflict).
    init?(_ value: DatabaseValue) {
        switch value {
        case .null: return nil
        case .date(let d): self.value = .date(DatabaseValue.roundedToMicroseconds(d))
        default: self.value = value
        }
    }

    func hash(into hasher: inout Hasher) {
        switch value {
        case .text(let s):
            hasher.combine(0 as UInt8)
            var s = s
            s.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        default:
            hasher.combine(1 as UInt8)
            hasher.combine(value)
        }
    }

    static func == (a: Self, b: Self) -> Bool {
        switch (a.value, b.value) {
        case (.text(let x), .text(let y)): return x.utf8.elementsEqual(y.utf8)
        default: return a.value == b.value
        }
    }
}
