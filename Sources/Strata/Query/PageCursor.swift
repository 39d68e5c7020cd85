// PageCursor: the opaque position after the last row of a keyset page, as a string or a Codable value.
import Foundation

/// Where the next keyset page starts: the ordered column values of the last row read, tied to the order.
///
/// ```swift
/// let first = try await User.query(on: db).order(\.name).order(\.id).page(after: nil, limit: 20)
/// if let cursor = first.nextCursor {
///     let token = cursor.description                      // hand it to a client…
///     let next = try await User.query(on: db).order(\.name).order(\.id)
///         .page(after: PageCursor(token), limit: 20)      // …and read on from it
/// }
/// ```
///
/// A cursor is opaque: base64url text of the values, encoded exactly (dates to the bit, decimals as text), and of
/// the order it was read with, so that a cursor given to another order is refused. It is not signed: a client can
/// build one by hand, and it only ever filters a query the app wrote.
public struct PageCursor: Sendable, Hashable, Codable, LosslessStringConvertible {
    /// The order the cursor was read with: each column's name and direction (`name+`, `id-`), joined by commas.
    let order: String
    /// The stored values of the ordered columns in the last row read, in order.
    let values: [DatabaseValue]

    init(order: String, values: [DatabaseValue]) {
        self.order = order
        self.values = values
    }

    /// The cursor a ``description`` spelled, or nil when the text is not one.
    ///
    /// - Parameter description: the text of ``description``.
    public init?(_ description: String) {
        var text = description.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        text += String(repeating: "=", count: (4 - text.utf8.count % 4) % 4)
        guard let data = Data(base64Encoded: text),
            let wire = try? JSONDecoder().decode(Wire.self, from: data),
            let values = try? wire.v.map({ try $0.value() })
        else { return nil }
        self.init(order: wire.o, values: values)
    }

    /// The cursor as URL-safe text (base64url, no padding).
    public var description: String {
        let wire = Wire(o: order, v: values.map(WireValue.init))
        let data = (try? JSONEncoder().encode(wire)) ?? Data()
        return data.base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// Decodes the cursor from its text (one string value).
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let cursor = PageCursor(text) else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(codingPath: decoder.codingPath, debugDescription: "not a page cursor"))
        }
        self = cursor
    }

    /// Encodes the cursor as its text (one string value).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    /// The cursor's wire form: the order and the values.
    private struct Wire: Codable {
        var o: String
        var v: [WireValue]
    }

    /// One value on the wire: a one-letter kind and its text.
    private struct WireValue: Codable {
        var k: String
        var t: String

        init(_ value: DatabaseValue) {
            switch value {
            case .null: (k, t) = ("n", "")
            case .bool(let b): (k, t) = ("b", b ? "1" : "0")
            case .integer(let i): (k, t) = ("i", String(i))
            case .double(let d): (k, t) = ("d", String(d.bitPattern))
            case .text(let s): (k, t) = ("s", s)
            case .blob(let d): (k, t) = ("x", d.base64EncodedString())
            case .date(let d): (k, t) = ("t", String(d.timeIntervalSince1970.bitPattern))
            case .decimal(let d): (k, t) = ("m", d.description)
            case .uuid(let u): (k, t) = ("u", u.uuidString)
            case .json(let s): (k, t) = ("j", s)
            }
        }

        func value() throws -> DatabaseValue {
            struct Malformed: Error {}
            switch k {
            case "n": return .null
            case "b": return .bool(t == "1")
            case "i": return .integer(try Int64(t).orThrow(Malformed()))
            case "d": return .double(Double(bitPattern: try UInt64(t).orThrow(Malformed())))
            case "s": return .text(t)
            case "x": return .blob(try Data(base64Encoded: t).orThrow(Malformed()))
            case "t": return .date(Date(timeIntervalSince1970: Double(bitPattern: try UInt64(t).orThrow(Malformed()))))
            case "m":
                return .decimal(try Decimal(string: t, locale: Locale(identifier: "en_US_POSIX")).orThrow(Malformed()))
            case "u": return .uuid(try UUID(uuidString: t).orThrow(Malformed()))
            case "j": return .json(t)
            default: throw Malformed()
            }
        }
    }
}

extension Optional {
    /// The wrapped value, or `error` thrown.
    fileprivate func orThrow(_ error: some Error) throws -> Wrapped {
        guard let value = self else { throw error }
        return value
    }
}
