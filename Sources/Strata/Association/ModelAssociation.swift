// ModelAssociation: what every association kind offers the core: a key, delete rules, foreign keys.

/// What happens to associated rows when their owner is deleted.
public enum DeleteRule: String, Sendable, Hashable {
    /// Nothing in the ORM; the database's foreign key (NO ACTION) refuses orphans.
    case none
    /// Set the children's foreign key to NULL.
    case nullify
    /// Delete the children too, each running its own rules (cascades through several levels).
    case destroy
    /// Refuse to delete the owner while it has children: ``StrataError/deleteRestricted(model:association:)``.
    case restrict

    /// The matching `ON DELETE` action SQL backends declare.
    var foreignKeyAction: ForeignKey.Action {
        switch self {
        case .none: return .noAction
        case .nullify: return .setNull
        case .destroy: return .cascade
        case .restrict: return .restrict
        }
    }
}

/// An association declared on a model (`static let users = hasMany(User.self)`), seen by the core.
public protocol ModelAssociation<Owner>: Sendable {
    /// The model that declares the association (`User` for `User.group`).
    associatedtype Owner: Model
    /// A name unique within the owner, e.g. `hasMany user.group_id`.
    var key: String { get }
    /// Applies the delete rule before the owner row with this id is deleted.
    func beforeDeleting(ownerID: Owner.ID, _ tx: Transaction) throws
    /// Applies the delete rule, in kind, before the owner row with this id is soft-deleted: `destroy`
    /// soft-deletes the children that are soft-deleted models (others stay, their owner's row being there
    /// still), `restrict` refuses while live children exist, `nullify` and `none` do nothing.
    func beforeSoftDeleting(ownerID: Owner.ID, _ tx: Transaction) throws
    /// The delete rule this association applies to rows of `table` through `column`, if it does.
    func deleteRule(forTable table: String, column: String) -> DeleteRule?
    /// Foreign keys this association puts on the owner's table (belongsTo only).
    var foreignKeys: [ForeignKey] { get }
    /// The models whose tables this association needs (its target, and a through model), which
    /// ``Transaction/migrate(_:policy:)-([Model.],_)`` creates along with the owner's.
    var relatedModels: [any Model.Type] { get }
}

extension ModelAssociation {
    /// Does nothing.
    ///
    /// - Parameters:
    ///   - ownerID: the id of the owner being soft-deleted.
    ///   - tx: the delete's transaction.
    public func beforeSoftDeleting(ownerID: Owner.ID, _ tx: Transaction) throws {}
    /// Nil: the association applies no rule to other tables.
    ///
    /// - Parameters:
    ///   - table: a referencing table.
    ///   - column: its referencing column.
    /// - Returns: nil.
    public func deleteRule(forTable table: String, column: String) -> DeleteRule? { nil }
    /// None: only a belongs-to puts a foreign key on the owner's table.
    public var foreignKeys: [ForeignKey] { [] }
    /// None.
    public var relatedModels: [any Model.Type] { [] }
}

/// A foreign key resolved when an association is declared: one column, or for a parent with a composite key (see
/// ``CompositeKey``) one column per key column, in the parent key's column order. A bad declaration is kept as an
/// error and thrown when the association is used, since a `static let` cannot throw.
struct ResolvedKey: Sendable, Hashable {
    /// The key's columns: one, or several for a composite key; empty when ``problem`` says why.
    let columns: [String]
    let problem: String?
    /// The model whose table holds the key, named by the refusal of a composite key where one column is taken.
    var model = ""

    init(column: String?, problem: String?) {
        columns = column.map { [$0] } ?? []
        self.problem = problem
    }

    init(columns: [String], problem: String?, model: String = "") {
        self.columns = problem == nil ? columns : []
        self.problem = problem
        self.model = model
    }

    /// The one column of a single-column key; nil for a composite or unresolved one.
    var column: String? { columns.count == 1 ? columns[0] : nil }
    /// Whether the key has several columns (it references a composite key).
    var isComposite: Bool { columns.count > 1 }
    /// How the key is named in an association's key and in errors: `group_id`, or `(order_id, product_id)`.
    var name: String {
        columns.isEmpty ? "?" : columns.count == 1 ? columns[0] : "(" + columns.joined(separator: ", ") + ")"
    }

    /// The column, or the typed error explaining the declaration; a composite key is refused, with the
    /// association's model named, by a path that takes one column (`relatedKeys(matching:)`, whose SELECT has one
    /// column: `whereExists` tests a composite key with ``ExistenceTestable/existence(matching:)`` instead).
    func get() throws -> String {
        guard let column else {
            if isComposite {
                throw StrataError.invalidAssociation(
                    "\(model)'s foreign key \(name) has several columns: a one-column SELECT of related keys "
                        + "cannot hold it; test it with existence(matching:) (whereExists does)")
            }
            throw StrataError.invalidAssociation(problem ?? "unresolved foreign key")
        }
        return column
    }

    /// Every column of the key (one or several), or the typed error explaining the declaration.
    func getColumns() throws -> [String] {
        guard !columns.isEmpty else { throw StrataError.invalidAssociation(problem ?? "unresolved foreign key") }
        return columns
    }

    /// The conventional foreign key for `owner` in `table`: `Group` → `group_id`.
    static func conventional<Parent: Model, Child: Model>(parent: Parent.Type, in child: Child.Type) -> ResolvedKey {
        let column = SnakeCase.convert(String(describing: Parent.self)) + "_id"
        if Child.schema.index(of: column) != nil { return ResolvedKey(column: column, problem: nil) }
        return ResolvedKey(
            column: nil,
            problem: "\(Child.modelName) has no column '\(column)' for its \(Parent.modelName); "
                + "name the key explicitly (key: \\.yourKey)")
    }

    /// The key, checked against the key of the model it references: as many columns as `Parent`'s key has (one, or
    /// one per column of a composite key, see ``CompositeKey``), each of the type of the key column it matches.
    /// `label` names the declaration's argument in the error (`key:`/`keys:`; a through association's
    /// `ownerKey:`/`ownerKeys:` and `targetKey:`/`targetKeys:`).
    func referencing<Parent: Model, Child: Model>(
        _ parent: Parent.Type, from child: Child.Type, label: (one: String, several: String) = ("key", "keys")
    ) -> ResolvedKey {
        guard problem == nil else { return self }
        let parentColumns = Parent.keyColumnsInOrder
        guard parentColumns.count == columns.count else {
            let declare =
                parentColumns.count > 1
                ? "declare \(label.several): with \(parentColumns.count) key paths of \(Child.modelName), in the key's "
                    + "order"
                : "declare \(label.one): with one key path"
            return ResolvedKey(
                columns: [],
                problem:
                    "\(Child.modelName)'s foreign key \(name) has \(columns.count) column(s) but \(Parent.modelName)'s "
                    + "primary key has \(parentColumns.count) (\(parentColumns.joined(separator: ", "))): \(declare)")
        }
        guard columns.count > 1 else { return self }
        for (column, parentColumn) in zip(columns, parentColumns) {
            let mine = Child.schema.index(of: column).map { Child.schema.columns[$0].type }
            let theirs = Parent.schema.index(of: parentColumn).map { Parent.schema.columns[$0].type }
            guard let mine, let theirs, mine == theirs else {
                return ResolvedKey(
                    columns: [],
                    problem:
                        "\(Child.modelName).\(column) (\(mine.map { "\($0)" } ?? "?")) cannot reference "
                        + "\(Parent.modelName).\(parentColumn) (\(theirs.map { "\($0)" } ?? "?")): "
                        + "a composite foreign key's columns match the key's in order and type")
            }
        }
        return self
    }

    static func explicit<Child: Model, V>(_ kp: KeyPath<Child, V>) -> ResolvedKey {
        if let column = Child.columnName(for: kp) { return ResolvedKey(column: column, problem: nil) }
        return ResolvedKey(column: nil, problem: "\(kp) is not a stored column of \(Child.modelName)")
    }

    /// A key of several columns, one per key path, in the order given.
    static func explicit<Child: Model>(_ kps: [PartialKeyPath<Child>]) -> ResolvedKey {
        var columns: [String] = []
        for kp in kps {
            guard let column = Child.columnName(for: kp) else {
                return ResolvedKey(column: nil, problem: "\(kp) is not a stored column of \(Child.modelName)")
            }
            guard !columns.contains(column) else {
                return ResolvedKey(
                    column: nil, problem: "\(Child.modelName)'s foreign key names the column '\(column)' twice")
            }
            columns.append(column)
        }
        return ResolvedKey(columns: columns, problem: nil, model: Child.modelName)
    }
}

/// snake_case, the same rule the `@Model` macro uses for column and table names.
enum SnakeCase {
    static func convert(_ name: String) -> String {
        let chars = Array(name)
        var out = ""
        for (i, c) in chars.enumerated() {
            if c.isUppercase, i > 0 {
                let prev = chars[i - 1]
                let nextIsLower = i + 1 < chars.count && chars[i + 1].isLowercase
                if prev.isLowercase || prev.isNumber || (prev.isUppercase && nextIsLower) { out.append("_") }
            }
            out += c.lowercased()
        }
        return out
    }
}

extension Model {
    /// Sets a foreign-key property through the column it maps to.
    mutating func setForeignKey<K: PrimaryKey>(_ column: String, to value: K?) throws {
        let kp = Self.keyPath(forColumn: column)
        if let optional = kp as? WritableKeyPath<Self, K?> {
            self[keyPath: optional] = value
        } else if let required = kp as? WritableKeyPath<Self, K>, let value {
            self[keyPath: required] = value
        } else {
            throw StrataError.invalidAssociation(
                "\(Self.modelName).\(column) cannot be set to \(value.map(String.init(describing:)) ?? "nil") "
                    + "(it must be a stored 'var' of type \(K.self)? or \(K.self), the referenced model's key)")
        }
    }

    /// Whether linking the model must save it first: no id yet, or a key the app chose (`String`, an explicit
    /// `UUID`) on a model never fetched nor saved, whose row may not exist.
    var isUnsaved: Bool { id == nil || (!ID.isAssignedByDatabase && !_persistence.isStored) }

    /// The saved id, or ``StrataError/notPersisted(model:)``.
    func requireID() throws -> ID {
        guard let id else { throw StrataError.notPersisted(model: Self.modelName) }
        return id
    }

    /// The key's columns in the order of its ``CompositeKey/keyValues`` (the `primaryKey:` order), or the one key
    /// column: what a foreign key to this model lists, in order.
    static var keyColumnsInOrder: [String] {
        if let composite = ID.self as? any CompositeKey.Type { return composite.keyColumns }
        return schema.hasCompositeKey ? schema.primaryKeyColumnNames : [primaryKeyColumn]
    }

    /// The key's values in the order of ``keyColumnsInOrder``.
    static func keyValues(_ id: ID) -> [DatabaseValue] {
        (id as? any CompositeKey)?.keyValues ?? [id.databaseValue]
    }

    /// The key column; for a composite key its first column (which orders rows and counts them, never finds one).
    @usableFromInline
    static var primaryKeyColumn: String {
        let schema = self.schema
        return schema.columns[schema.primaryKeyIndex ?? schema.primaryKeyIndexes.first ?? 0].name
    }
}
