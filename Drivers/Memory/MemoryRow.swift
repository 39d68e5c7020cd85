// MemoryRow: the RowReader the memory driver hands out: a stored row seen through a column projection.
import Strata

/// A result row: the stored values, and which of them the statement returns, in order.
final class MemoryRow: RowReader {
    let values: [DatabaseValue]
    let projection: [Int]

    init(values: [DatabaseValue], projection: [Int]) {
        self.values = values
        self.projection = projection
    }

    var columnCount: Int { projection.count }

    @inline(__always)
    func value(at index: Int) -> DatabaseValue { values[projection[index]] }
}
