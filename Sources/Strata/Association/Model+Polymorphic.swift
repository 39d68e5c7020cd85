// Model+Polymorphic: declaring, reading and setting polymorphic associations (a type column plus an id column).

extension Model {
    /// A parent of one of several model types, named by `<name>_type` and pointed at by `<name>_id` (both
    /// stored columns of this model: a `String?` and an optional of the parents' key type).
    ///
    /// ```swift
    /// @Model struct Comment {
    ///     var id: Int64?
    ///     var body: String
    ///     var commentableType: String?
    ///     var commentableID: Int64?
    ///     static let commentable = belongsTo(polymorphic: "commentable", Post.self, Photo.self)
    /// }
    /// ```
    public static func belongsTo(polymorphic name: String, _ types: any Model.Type...) -> PolymorphicBelongsTo<Self> {
        PolymorphicBelongsTo(
            name: name, typeColumn: polymorphicColumn(name, "type"), idColumn: polymorphicColumn(name, "id"),
            targets: types.map { PolymorphicTarget($0) })
    }

    /// The children of `target` type whose `<name>_type` is this model's name and `<name>_id` its id.
    ///
    /// ```swift
    /// static let comments = hasMany(Comment.self, as: "commentable", onDelete: .destroy)
    /// ```
    public static func hasMany<T: Model>(_ target: T.Type, as name: String, onDelete: DeleteRule = .none)
        -> PolymorphicHasMany<Self, T>
    {
        PolymorphicHasMany(
            name: name, typeColumn: T.polymorphicColumn(name, "type"), idColumn: T.polymorphicColumn(name, "id"),
            onDelete: onDelete)
    }

    /// `commentable` + `type` → `commentable_type`, resolved against this model's columns.
    static func polymorphicColumn(_ name: String, _ suffix: String) -> ResolvedKey {
        let column = SnakeCase.convert(name) + "_" + suffix
        if schema.index(of: column) != nil { return ResolvedKey(column: column, problem: nil) }
        return ResolvedKey(
            column: nil, problem: "\(modelName) has no column '\(column)' for its polymorphic association '\(name)'")
    }

    // MARK: belongsTo(polymorphic:)

    /// The parent, fetched now: a model of one of the declared types, or nil when the columns are NULL or its row
    /// is gone.
    ///
    /// - Throws: ``StrataError/invalidValue(table:column:reason:)`` when the type column names no declared model.
    public func fetch(_ association: PolymorphicBelongsTo<Self>, _ tx: Transaction) throws -> (any Model)? {
        guard let reference = try association.reference(of: self) else { return nil }
        return try association.target(named: reference.type).fetch([reference.id], tx)[reference.id]
    }

    /// The parent loaded by `including(…)`.
    public func loaded(_ association: PolymorphicBelongsTo<Self>) throws -> (any Model)? {
        try loadedValue(association.key, as: (any Model)?.self)
    }

    /// Points this model at `parent` (a saved model of a declared type), or at nothing; save the model to store it.
    ///
    /// - Throws: ``StrataError/notPersisted(model:)`` for an unsaved parent,
    ///   ``StrataError/invalidAssociation(_:)`` for a type the association does not declare.
    public mutating func set<T: Model>(_ association: PolymorphicBelongsTo<Self>, to parent: T?) throws {
        let typeColumn = try association.typeColumn.get()
        let idColumn = try association.idColumn.get()
        guard let parent else {
            try setForeignKey(typeColumn, to: String?.none)
            try setForeignKey(idColumn, to: T.ID?.none)
            return
        }
        guard association.targets.contains(where: { $0.typeName == T.modelName }) else {
            throw StrataError.invalidAssociation(
                "\(Self.modelName).\(association.name) does not declare \(T.modelName) among its types")
        }
        let id = try parent.requireID()
        try setForeignKey(typeColumn, to: T.modelName)
        try setForeignKey(idColumn, to: id)
    }

    /// Fetches the parent in its own connection lease.
    nonisolated(nonsending)
        public func fetch(_ association: PolymorphicBelongsTo<Self>, on db: Database) async throws -> (any Model)?
    {
        try await db.read { tx in try fetch(association, tx) }
    }

    // MARK: hasMany(…, as:)

    /// The children, fetched now.
    public func fetch<T>(_ association: PolymorphicHasMany<Self, T>, _ tx: Transaction) throws -> [T] {
        try association.children(of: requireID(), tx).all()
    }

    /// The children loaded by `including(…)`.
    public func loaded<T>(_ association: PolymorphicHasMany<Self, T>) throws -> [T] {
        try loadedValue(association.key, as: [T].self)
    }

    /// Makes `child` one of this model's children (sets its type and id columns) and saves it; an unsaved owner is
    /// saved first.
    public mutating func add<T>(_ child: inout T, to association: PolymorphicHasMany<Self, T>, _ tx: Transaction)
        throws
    {
        if isUnsaved { try save(tx) }
        try child.setForeignKey(association.typeColumn.get(), to: Self.modelName)
        try child.setForeignKey(association.idColumn.get(), to: requireID())
        try child.save(tx)
    }

    /// Fetches the children in their own connection lease.
    nonisolated(nonsending)
        public func fetch<T>(_ association: PolymorphicHasMany<Self, T>, on db: Database) async throws -> [T]
    {
        try await db.read { tx in try fetch(association, tx) }
    }

    /// Adds a child in one transaction.
    nonisolated(nonsending)
        public mutating func add<T>(_ child: inout T, to association: PolymorphicHasMany<Self, T>, on db: Database)
        async throws
    {
        var owner = self
        var copy = child
        try await db.transaction { tx in try owner.add(&copy, to: association, tx) }
        self = owner
        child = copy
    }
}
