// Model+Associations: reading, adding and removing associated models, in a transaction or one-shot.

extension Model {
    // MARK: hasMany

    /// The children, fetched now.
    public func fetch<T>(_ association: HasMany<Self, T>, _ tx: Transaction) throws -> [T] {
        try association.children(of: requireID(), tx).all()
    }

    /// The children loaded by `including(…)`; throws ``StrataError/associationNotLoaded(model:association:)``
    /// when the query did not include them.
    public func loaded<T>(_ association: HasMany<Self, T>) throws -> [T] {
        try loadedValue(association.key, as: [T].self)
    }

    /// Makes `child` one of this model's children and saves it; an unsaved owner is saved first.
    public mutating func add<T>(_ child: inout T, to association: HasMany<Self, T>, _ tx: Transaction) throws {
        if isUnsaved { try save(tx) }
        if association.foreignKey.isComposite {
            return try child.link(association.foreignKey.getColumns(), to: Self.keyValues(requireID()), saving: tx)
        }
        try child.setForeignKey(association.foreignKey.get(), to: requireID())
        try child.save(tx)
    }

    /// Detaches `child` (its foreign key becomes nil) and saves it.
    ///
    /// `remove` takes the same forms on `hasMany` and `hasMany(through:)`: `inout` (the model you hold is
    /// updated, as `add` does) or a value.
    public func remove<T>(_ child: inout T, from association: HasMany<Self, T>, _ tx: Transaction) throws {
        if association.foreignKey.isComposite {
            let columns = try association.foreignKey.getColumns()
            guard let id, child.values(inColumns: columns) == Self.keyValues(id) else { return }
            return try child.link(columns, to: nil, saving: tx)
        }
        let fk = try association.foreignKey.get()
        guard child.key(inColumn: fk, as: ID.self) == id else { return }
        try child.setForeignKey(fk, to: ID?.none)
        try child.save(tx)
    }

    /// Detaches `child` (its row's foreign key becomes nil); the value you pass is not changed.
    public func remove<T>(_ child: T, from association: HasMany<Self, T>, _ tx: Transaction) throws {
        var copy = child
        try remove(&copy, from: association, tx)
    }

    // MARK: hasOne

    /// The child, fetched now.
    public func fetch<T>(_ association: HasOne<Self, T>, _ tx: Transaction) throws -> T? {
        try association.child(of: requireID(), tx).first()
    }

    /// The child loaded by `including(…)`.
    public func loaded<T>(_ association: HasOne<Self, T>) throws -> T? {
        try loadedValue(association.key, as: T?.self)
    }

    /// Makes `child` this model's child and saves it; an unsaved owner is saved first.
    public mutating func set<T>(_ child: inout T, as association: HasOne<Self, T>, _ tx: Transaction) throws {
        if isUnsaved { try save(tx) }
        if association.foreignKey.isComposite {
            return try child.link(association.foreignKey.getColumns(), to: Self.keyValues(requireID()), saving: tx)
        }
        try child.setForeignKey(association.foreignKey.get(), to: requireID())
        try child.save(tx)
    }

    // MARK: belongsTo

    /// The parent, fetched now (nil when the key is nil).
    public func fetch<T>(_ association: BelongsTo<Self, T>, _ tx: Transaction) throws -> T? {
        if association.foreignKey.isComposite {
            guard let values = values(inColumns: try association.foreignKey.getColumns()) else { return nil }
            let match = CompositeForeignKey.equality(T.keyColumnsInOrder, values)
            return try T.query(on: tx).where(Condition(match)).first()
        }
        guard let parentID = key(inColumn: try association.foreignKey.get(), as: T.ID.self) else { return nil }
        return try T.find(parentID, tx)
    }

    /// The parent loaded by `including(…)`.
    public func loaded<T>(_ association: BelongsTo<Self, T>) throws -> T? {
        try loadedValue(association.key, as: T?.self)
    }

    /// Points this model at `parent` (or at nothing); save the model to store it.
    ///
    /// - Throws: ``StrataError/notPersisted(model:)`` for an unsaved parent.
    public mutating func set<T>(_ association: BelongsTo<Self, T>, to parent: T?) throws {
        let parentID = try parent.map { try $0.requireID() }
        if association.foreignKey.isComposite {
            return try setKeyColumns(association.foreignKey.getColumns(), to: parentID.map(T.keyValues))
        }
        try setForeignKey(association.foreignKey.get(), to: parentID)
    }

    // MARK: hasMany(through:)

    /// The targets, fetched now (two queries).
    public func fetch<T, J>(_ association: HasManyThrough<Self, T, J>, _ tx: Transaction) throws -> [T] {
        let id = try requireID()
        return try association.targets(of: [id], tx)[id] ?? []
    }

    /// The targets loaded by `including(…)`.
    public func loaded<T, J>(_ association: HasManyThrough<Self, T, J>) throws -> [T] {
        try loadedValue(association.key, as: [T].self)
    }

    /// Links `target` to this model with a new join row; unsaved models are saved first. The join row
    /// is inserted with only its keys (every column of a key of several), so the join model's other columns need
    /// defaults. A key that does not fit throws before anything is saved; on any failure both models are as they
    /// were.
    public mutating func add<T, J>(_ target: inout T, to association: HasManyThrough<Self, T, J>, _ tx: Transaction)
        throws
    {
        let columns = try association.ownerKey.getColumns() + association.targetKey.getColumns()
        var owner = self
        var linked = target
        if owner.isUnsaved { try owner.save(tx) }
        if linked.isUnsaved { try linked.save(tx) }
        let insert = Insert(
            table: J.schema.name, columns: columns,
            rows: [Self.keyValues(try owner.requireID()) + T.keyValues(try linked.requireID())])
        _ = try tx.execute(.insert(insert))
        self = owner
        target = linked
    }

    /// Deletes the join rows linking `target` to this model; the target itself stays.
    public func remove<T, J>(_ target: T, from association: HasManyThrough<Self, T, J>, _ tx: Transaction) throws {
        let filter = SQLExpression.and([
            try association.ownerFilter(try requireID()),
            CompositeForeignKey.equality(try association.targetKey.getColumns(), T.keyValues(try target.requireID())),
        ])
        _ = try tx.execute(.delete(Delete(table: J.schema.name, filter: filter)))
    }

    /// Deletes the join rows linking `target` to this model (the `inout` form `hasMany`'s `remove` takes too).
    public func remove<T, J>(_ target: inout T, from association: HasManyThrough<Self, T, J>, _ tx: Transaction)
        throws
    {
        try remove(target, from: association, tx)
    }

    // MARK: One-shot async

    /// Fetches associated models in their own connection lease.
    nonisolated(nonsending)
        public func fetch<T>(_ association: HasMany<Self, T>, on db: Database) async throws -> [T]
    {
        try await db.read { tx in try fetch(association, tx) }
    }

    /// Fetches the parent in its own connection lease.
    nonisolated(nonsending)
        public func fetch<T>(_ association: BelongsTo<Self, T>, on db: Database) async throws -> T?
    {
        try await db.read { tx in try fetch(association, tx) }
    }

    /// Fetches the targets through the join model in their own connection lease.
    nonisolated(nonsending)
        public func fetch<T, J>(_ association: HasManyThrough<Self, T, J>, on db: Database) async throws -> [T]
    {
        try await db.read { tx in try fetch(association, tx) }
    }

    /// Adds a child in one transaction (see ``add(_:to:_:)-(_,HasMany<Self,T>,_)``).
    nonisolated(nonsending)
        public mutating func add<T>(_ child: inout T, to association: HasMany<Self, T>, on db: Database) async throws
    {
        var owner = self
        var copy = child
        try await db.transaction { tx in try owner.add(&copy, to: association, tx) }
        self = owner
        child = copy
    }

    /// Links a target in one transaction.
    nonisolated(nonsending)
        public mutating func add<T, J>(_ target: inout T, to association: HasManyThrough<Self, T, J>, on db: Database)
        async throws
    {
        var owner = self
        var copy = target
        try await db.transaction { tx in try owner.add(&copy, to: association, tx) }
        self = owner
        target = copy
    }

    /// Detaches a child in its own connection lease.
    nonisolated(nonsending)
        public func remove<T>(_ child: inout T, from association: HasMany<Self, T>, on db: Database) async throws
    {
        var copy = child
        try await db.withConnection { tx in try remove(&copy, from: association, tx) }
        child = copy
    }

    /// Unlinks a target (deletes the join rows) in its own connection lease.
    nonisolated(nonsending)
        public func remove<T, J>(_ target: T, from association: HasManyThrough<Self, T, J>, on db: Database)
        async throws
    {
        try await db.withConnection { tx in try remove(target, from: association, tx) }
    }

    /// Detaches a child in its own connection lease; the value you pass is not changed.
    nonisolated(nonsending)
        public func remove<T>(_ child: T, from association: HasMany<Self, T>, on db: Database) async throws
    {
        try await db.withConnection { tx in try remove(child, from: association, tx) }
    }

    /// Unlinks a target in its own connection lease (the `inout` form).
    nonisolated(nonsending)
        public func remove<T, J>(_ target: inout T, from association: HasManyThrough<Self, T, J>, on db: Database)
        async throws
    {
        let copy = target
        try await db.withConnection { tx in try remove(copy, from: association, tx) }
    }
}
