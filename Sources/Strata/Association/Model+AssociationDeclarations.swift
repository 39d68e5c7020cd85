// Model+AssociationDeclarations: hasMany, hasOne, belongsTo and hasMany(through:), as a model declares them.

extension Model {
    /// The children of `target` type pointing at this model by the conventional key (`Group` → `group_id`).
    ///
    /// ```swift
    /// static let users = hasMany(User.self, onDelete: .destroy)
    /// ```
    public static func hasMany<T: Model>(_ target: T.Type, onDelete: DeleteRule = .none) -> HasMany<Self, T> {
        HasMany(
            foreignKey: ResolvedKey.conventional(parent: Self.self, in: T.self).referencing(Self.self, from: T.self),
            onDelete: onDelete)
    }

    /// The children pointing at this model by an explicit key: `hasMany(User.self, key: \.managerID)`.
    public static func hasMany<T: Model, V>(_ target: T.Type, key: KeyPath<T, V>, onDelete: DeleteRule = .none)
        -> HasMany<Self, T>
    {
        HasMany(foreignKey: ResolvedKey.explicit(key).referencing(Self.self, from: T.self), onDelete: onDelete)
    }

    /// The children pointing at this model, whose key has several columns (see ``CompositeKey``), by a foreign key of
    /// as many columns, in the key's column order: Rails' `has_many :notes, foreign_key: [:order_id, :product_id]`.
    ///
    /// ```swift
    /// @Model(table: "order_line", primaryKey: ["orderID", "productID"])
    /// struct OrderLine {
    ///     var orderID: Int64
    ///     var productID: Int64
    ///     static let notes = hasMany(LineNote.self, keys: \.orderID, \.productID, onDelete: .destroy)
    /// }
    /// ```
    ///
    /// A key whose column count or types do not match this model's key is refused when the association is used:
    /// ``StrataError/invalidAssociation(_:)`` naming the child model and its columns.
    public static func hasMany<T: Model>(_ target: T.Type, keys: PartialKeyPath<T>..., onDelete: DeleteRule = .none)
        -> HasMany<Self, T>
    {
        HasMany(foreignKey: ResolvedKey.explicit(keys).referencing(Self.self, from: T.self), onDelete: onDelete)
    }

    /// The single child pointing at this model, whose key has several columns, by a foreign key of as many columns
    /// in the key's column order (see ``hasMany(_:keys:onDelete:)``).
    public static func hasOne<T: Model>(_ target: T.Type, keys: PartialKeyPath<T>..., onDelete: DeleteRule = .none)
        -> HasOne<Self, T>
    {
        HasOne(foreignKey: ResolvedKey.explicit(keys).referencing(Self.self, from: T.self), onDelete: onDelete)
    }

    /// The single child pointing at this model by the conventional key.
    public static func hasOne<T: Model>(_ target: T.Type, onDelete: DeleteRule = .none) -> HasOne<Self, T> {
        HasOne(
            foreignKey: ResolvedKey.conventional(parent: Self.self, in: T.self).referencing(Self.self, from: T.self),
            onDelete: onDelete)
    }

    /// The single child pointing at this model by an explicit key.
    public static func hasOne<T: Model, V>(_ target: T.Type, key: KeyPath<T, V>, onDelete: DeleteRule = .none)
        -> HasOne<Self, T>
    {
        HasOne(foreignKey: ResolvedKey.explicit(key).referencing(Self.self, from: T.self), onDelete: onDelete)
    }

    /// The parent this model points at by the conventional key (`Group` → this model's `group_id`).
    ///
    /// `onDelete` is the seeds' "belongs_to with Destroy": what deleting the parent does to this model's rows,
    /// declared on the child's side. It becomes the foreign key's `ON DELETE` action (`destroy` → `CASCADE`,
    /// `nullify` → `SET NULL`, `restrict` → `RESTRICT`), so the database applies it to every delete of the parent,
    /// bulk ones included, but no child callbacks run and a soft-deleted parent keeps its children: declare
    /// `hasMany(…, onDelete:)` on the parent for a rule that runs them.
    ///
    /// ```swift
    /// static let group = belongsTo(Group.self, onDelete: .destroy)   // deleting a group deletes its users
    /// ```
    public static func belongsTo<T: Model>(_ target: T.Type, onDelete: DeleteRule? = nil) -> BelongsTo<Self, T> {
        BelongsTo(
            foreignKey: ResolvedKey.conventional(parent: T.self, in: Self.self).referencing(T.self, from: Self.self),
            onDelete: onDelete)
    }

    /// The parent this model points at by an explicit key: `belongsTo(User.self, key: \.managerID)`.
    public static func belongsTo<T: Model, V>(_ target: T.Type, key: KeyPath<Self, V>, onDelete: DeleteRule? = nil)
        -> BelongsTo<Self, T>
    {
        BelongsTo(foreignKey: ResolvedKey.explicit(key).referencing(T.self, from: Self.self), onDelete: onDelete)
    }

    /// The parent this model points at when the parent's key has several columns (see ``CompositeKey``): a foreign
    /// key of as many columns, in the parent key's column order, as Rails' `belongs_to :order_line, foreign_key:
    /// [:order_id, :product_id]`.
    ///
    /// ```swift
    /// @Model(table: "line_note")
    /// struct LineNote {
    ///     var id: Int64?
    ///     var orderID: Int64
    ///     var productID: Int64
    ///     static let line = belongsTo(OrderLine.self, keys: \.orderID, \.productID)
    /// }
    /// ```
    ///
    /// A child whose key columns are all set points at the parent with those values; one left NULL (an optional
    /// property) points at none. A key whose column count or types do not match the parent's key is refused when the
    /// association is used: ``StrataError/invalidAssociation(_:)`` naming this model and its columns.
    public static func belongsTo<T: Model>(_ target: T.Type, keys: PartialKeyPath<Self>..., onDelete: DeleteRule? = nil)
        -> BelongsTo<Self, T>
    {
        BelongsTo(foreignKey: ResolvedKey.explicit(keys).referencing(T.self, from: Self.self), onDelete: onDelete)
    }

    /// Targets reached through a join model with conventional keys (`user_id`, `project_id`).
    ///
    /// ```swift
    /// static let projects = hasMany(Project.self, through: Membership.self)
    /// ```
    public static func hasMany<T: Model, J: Model>(
        _ target: T.Type, through join: J.Type,
        onDelete: DeleteRule = .destroy
    ) -> HasManyThrough<Self, T, J> {
        HasManyThrough(
            ownerKey: ResolvedKey.conventional(parent: Self.self, in: J.self)
                .referencing(Self.self, from: J.self, label: Self.ownerLabels),
            targetKey: ResolvedKey.conventional(parent: T.self, in: J.self)
                .referencing(T.self, from: J.self, label: Self.targetLabels),
            onDelete: onDelete)
    }

    /// Targets reached through a join model with explicit keys on the join model.
    public static func hasMany<T: Model, J: Model, A, B>(
        _ target: T.Type, through join: J.Type,
        ownerKey: KeyPath<J, A>, targetKey: KeyPath<J, B>,
        onDelete: DeleteRule = .destroy
    ) -> HasManyThrough<Self, T, J> {
        HasManyThrough(
            ownerKey: ResolvedKey.explicit(ownerKey).referencing(Self.self, from: J.self, label: Self.ownerLabels),
            targetKey: ResolvedKey.explicit(targetKey).referencing(T.self, from: J.self, label: Self.targetLabels),
            onDelete: onDelete)
    }

    /// Targets reached through a join model whose key to this model or to the target has several columns (that
    /// model's key is a ``CompositeKey``): one key path of the join model per key column, in that key's order.
    ///
    /// ```swift
    /// @Model(table: "course", primaryKey: ["term", "code"]) struct Course {
    ///     var term: Int64
    ///     var code: String
    ///     static let students = hasMany(
    ///         Student.self, through: Enrollment.self, ownerKeys: \.term, \.courseCode, targetKeys: \.studentID)
    /// }
    /// ```
    ///
    /// A list whose length or column types do not match the key it references is
    /// ``StrataError/invalidAssociation(_:)`` naming the join model and the columns, thrown when the association is
    /// used.
    public static func hasMany<T: Model, J: Model>(
        _ target: T.Type, through join: J.Type,
        ownerKeys: PartialKeyPath<J>..., targetKeys: PartialKeyPath<J>...,
        onDelete: DeleteRule = .destroy
    ) -> HasManyThrough<Self, T, J> {
        HasManyThrough(
            ownerKey: ResolvedKey.explicit(ownerKeys).referencing(Self.self, from: J.self, label: Self.ownerLabels),
            targetKey: ResolvedKey.explicit(targetKeys).referencing(T.self, from: J.self, label: Self.targetLabels),
            onDelete: onDelete)
    }

    /// How a through association's error names its key to the owner: the argument that declares it.
    private static var ownerLabels: (one: String, several: String) { ("ownerKey", "ownerKeys") }
    /// How a through association's error names its key to the target.
    private static var targetLabels: (one: String, several: String) { ("targetKey", "targetKeys") }
}
