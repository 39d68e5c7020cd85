// QueryBuilder+ReadOne: the reads of a Database-bound builder that run as one statement through readOne.
import Foundation

extension QueryBuilder {
    /// The number in a `COUNT(*)` row.
    static func count(in reader: any RowReader) -> Int {
        switch reader.value(at: 0) {
        case .integer(let v): return Int(v)
        case .double(let d): return Int(d)
        case .decimal(let d): return Int(truncating: d as NSDecimalNumber)
        default: return 0
        }
    }
}

extension QueryBuilder where Executor == Database {
    /// The query's SELECT when it may run with ``Database/readOne(_:onRow:)``, or nil when it must run on a
    /// transaction handle: the numbers-stored-as-text check (see ``checkNumberStorage(_:)``) has not yet read its
    /// model's columns, or the query reads other tables, whose columns the check reads through a connection.
    @usableFromInline
    func loopSelect(limit: Int? = nil) throws -> Select? {
        let known = (executor.owner ?? executor).textStoredColumns.lookup(model: ObjectIdentifier(M.self))
        guard known?.isEmpty == true else { return nil }
        let select = try selectStatement(limit: limit)
        return select.readsOtherTables ? nil : select
    }

    /// Runs `select` with ``Database/readOne(_:onRow:)`` and appends each decoded model to `out`, where it is marked
    /// stored: `fetch(_:_:)` handed each model to a closure that appended a copy of it (about 10,800 instructions a
    /// query of the bench's `query-async`).
    @inlinable
    nonisolated(nonsending) func fetch(_ select: Select, appendingTo out: inout [M]) async throws {
        guard case .columns(let columns) = select.selection else { return }
        let context = RowContext(model: M.self, schema: M.schema, selected: columns, keyring: executor.keyring)
        _ = try await executor.readOne(select) { reader in
            out.append(try M(row: Row(reader: reader, context: context)))
            out[out.count - 1]._persistence.markStored()
        }
    }

    /// Runs `select` with ``Database/readOne(_:onRow:)`` and hands each decoded model to `body`. Inlinable, so the
    /// model's module specializes the per-row decoding.
    @inlinable
    nonisolated(nonsending) func fetch(_ select: Select, _ body: (M) throws -> Void) async throws {
        guard case .columns(let columns) = select.selection else { return }
        let context = RowContext(model: M.self, schema: M.schema, selected: columns, keyring: executor.keyring)
        _ = try await executor.readOne(select) { reader in
            var model = try M(row: Row(reader: reader, context: context))
            model._persistence.markStored()
            try body(model)
        }
    }
}
