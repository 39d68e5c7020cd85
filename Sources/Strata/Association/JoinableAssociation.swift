// JoinableAssociation: an association the query builder can JOIN on (belongsTo, hasOne, hasMany, through).

/// An association that can become JOIN clauses from its owner's table.
public protocol JoinableAssociation<Owner>: ModelAssociation {
    /// The model the association reaches (`Group` for `User.group`), whose table a join adds.
    associatedtype Target: Model
    /// The joins reaching `Target` under `alias` from the owner's (main) table.
    func joins(_ kind: Join.Kind, alias: String) throws -> [Join]
}

extension BelongsTo: JoinableAssociation {
    /// One join of the parent's table under `alias`, on its primary key equal to the owner's foreign key.
    ///
    /// - Parameters:
    ///   - kind: inner, left, right or full.
    ///   - alias: the name the parent's table goes by.
    /// - Returns: the join.
    /// - Throws: ``StrataError/invalidAssociation(_:)`` for a key that maps to no column.
    public func joins(_ kind: Join.Kind, alias: String) throws -> [Join] {
        let on =
            foreignKey.isComposite
            ? CompositeForeignKey.joinCondition(try foreignKey.getColumns(), Target.keyColumnsInOrder, alias: alias)
            : SQLExpression.compare(
                .equal, .column(try foreignKey.get()), .column(Target.primaryKeyColumn, table: alias))
        return [Join(kind, table: Target.schema.name, alias: alias, on: on)]
    }
}

extension HasMany: JoinableAssociation {
    /// One join of the children's table under `alias`, on their foreign key equal to the owner's primary key.
    ///
    /// - Parameters:
    ///   - kind: inner, left, right or full.
    ///   - alias: the name the children's table goes by.
    /// - Returns: the join.
    /// - Throws: ``StrataError/invalidAssociation(_:)`` for a key that maps to no column.
    public func joins(_ kind: Join.Kind, alias: String) throws -> [Join] {
        try link.joins(kind, alias: alias)
    }
}

extension HasOne: JoinableAssociation {
    /// One join of the child's table under `alias`, on its foreign key equal to the owner's primary key.
    ///
    /// - Parameters:
    ///   - kind: inner, left, right or full.
    ///   - alias: the name the child's table goes by.
    /// - Returns: the join.
    /// - Throws: ``StrataError/invalidAssociation(_:)`` for a key that maps to no column.
    public func joins(_ kind: Join.Kind, alias: String) throws -> [Join] {
        try link.joins(kind, alias: alias)
    }
}

extension HasManyThrough: JoinableAssociation {
    /// Two joins: the join model (as `alias_via`), then the target (as `alias`), each on every column of its key.
    public func joins(_ kind: Strata.Join.Kind, alias: String) throws -> [Strata.Join] {
        let via = alias + "_via"
        let first = CompositeForeignKey.joinCondition(Owner.keyColumnsInOrder, try ownerKey.getColumns(), alias: via)
        let second = SQLExpression.and(
            zip(try targetKey.getColumns(), Target.keyColumnsInOrder).map { mine, theirs in
                .compare(.equal, .column(mine, table: via), .column(theirs, table: alias))
            })
        return [
            Strata.Join(kind, table: Join.schema.name, alias: via, on: first),
            Strata.Join(kind, table: Target.schema.name, alias: alias, on: second),
        ]
    }
}
