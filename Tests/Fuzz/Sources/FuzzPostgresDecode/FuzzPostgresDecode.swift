// FuzzPostgresDecode: libFuzzer target for the PostgreSQL driver's text-format value parsers, with no server.
import Foundation
import FuzzSupport
import Strata
import StrataPostgres

/// The type OIDs the driver reads specially, and two it reads as text.
private let oids: [UInt32] = [16, 17, 20, 21, 23, 25, 26, 114, 700, 701, 1043, 1082, 1114, 1184, 1700, 2950, 3802]

private enum Color: String, Codable, DatabaseValueConvertible { case red, green }

/// Builds a one-row result from the input (a type and a value per column, then raw text) and reads each
/// column every way the driver and the core read values.
public func fuzzPostgresDecode(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let count = 1 + input.choose(3)
    var types: [UInt32] = []
    var values: [[UInt8]?] = []
    for _ in 0..<count {
        types.append(input.pick(oids))
        values.append(input.choose(10) == 0 ? nil : input.data(max: 48))
    }
    let checked = _PostgresFuzzing.withRow(types: types, values: values) { reader in
        for index in -1...count { read(reader, index, types: types, values: values) }
        return true
    }
    if checked == nil { fuzzFailure("libpq could not build the result") }
    return 0
}

private func read(_ reader: any RowReader, _ index: Int, types: [UInt32], values: [[UInt8]?]) {
    let value = reader.value(at: index)
    func fail(_ why: String) -> Never {
        let column =
            types.indices.contains(index)
            ? "type \(types[index]), text \(values[index].map { String(decoding: $0, as: UTF8.self).debugDescription } ?? "NULL")"
            : "out of range"
        fuzzFailure("column \(index) (\(column)): \(why); value(at:) gave \(value.summary)")
    }
    if !types.indices.contains(index) || values[index] == nil, !value.isNull { fail("expected NULL") }
    // The fast paths agree with the general one whenever they answer.
    if let i = reader.int64(at: index), value != .integer(i) { fail("int64(at:) gave \(i)") }
    if let d = reader.double(at: index) {
        guard case .double(let e) = value, e.bitPattern == d.bitPattern || (e.isNaN && d.isNaN) else {
            fail("double(at:) gave \(d)")
        }
    }
    if let s = reader.string(at: index), value != .text(s) { fail("string(at:) gave \(s.debugDescription)") }
    // Every supported Swift type either decodes or throws a typed conversion error.
    decode(Bool.self, reader, index, value)
    decode(Int.self, reader, index, value)
    decode(Int8.self, reader, index, value)
    decode(Int16.self, reader, index, value)
    decode(Int32.self, reader, index, value)
    decode(Int64.self, reader, index, value)
    decode(UInt8.self, reader, index, value)
    decode(UInt16.self, reader, index, value)
    decode(UInt32.self, reader, index, value)
    decode(Double.self, reader, index, value)
    decode(Float.self, reader, index, value)
    decode(String.self, reader, index, value)
    decode(Data.self, reader, index, value)
    decode(Date.self, reader, index, value)
    decode(Decimal.self, reader, index, value)
    decode(UUID.self, reader, index, value)
    decode(URL.self, reader, index, value)
    decode([String].self, reader, index, value)
    decode([String: Int].self, reader, index, value)
    decode(Color.self, reader, index, value)
    decode(Int64?.self, reader, index, value)
    decode(Date?.self, reader, index, value)
}

/// Reads `T` by its fast path and by ``DatabaseValueConvertible/init(databaseValue:)``; when both answer,
/// they must agree on the stored value.
private func decode<T: DatabaseValueConvertible>(
    _ type: T.Type, _ reader: any RowReader, _ index: Int, _ value: DatabaseValue
) {
    let fast = T.read(from: reader, at: index)
    let general = try? T(databaseValue: value)
    if let fast, let general, !same(fast.databaseValue, general.databaseValue) {
        fuzzFailure("\(T.self): fast path \(fast.databaseValue.summary) ≠ general \(general.databaseValue.summary)")
    }
}

private func same(_ a: DatabaseValue, _ b: DatabaseValue) -> Bool {
    if case .double(let x) = a, case .double(let y) = b { return x.bitPattern == y.bitPattern }
    return a == b
}
