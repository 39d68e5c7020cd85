// MemoryRow: the RowReader the memory driver hands out: a stored row seen through a column projection.
import Strata

/// A result row: the stored values, and which of them the statement returns, in order.
///
/// The typed readers match on the stored value in place, so reading an integer or a double copies
/// no ``DatabaseValue`` (and text only retains its string). One reader serves a whole statement,
/// pointed at each row in turn.
final class MemoryRow: RowReader {
    var values: [DatabaseValue]
    /// The stored positions of the returned columns; nil for every stored column in order.
    var projection: [Int]?

    init(values: [DatabaseValue], projection: [Int]?) {
        self.values = values
        self.projection = projection
    }

    var columnCount: Int { projection?.count ?? values.count }

    @inline(__always)
    private func position(_ index: Int) -> Int { projection?[index] ?? index }

    @inline(__always)
    func value(at index: Int) -> DatabaseValue { values[position(index)] }

    func int64(at index: Int) -> Int64? {
        if case .integer(let v) = values[position(index)] { return v }
        return nil
    }

    func double(at index: Int) -> Double? {
        if case .double(let v) = values[position(index)] { return v }
        return nil
    }

    func string(at index: Int) -> String? {
        if case .text(let v) = values[position(index)] { return v }
        return nil
    }
}
