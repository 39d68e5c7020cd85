// Macros: the @Model macro and its property markers.

/// Makes a struct a ``Model``: derives the table and columns, writes row decoding by column index,
/// key-path-to-column mapping, value encoding and change tracking.
///
/// ```swift
/// @Model struct User {
///     var id: Int64?
///     var name: String
///     @Column("mail") var email: String
///     @Transient var draft = ""
/// }
/// ```
///
/// - Parameter table: the table name; by default the type name in snake_case (`UserGroup` → `user_group`).
@attached(member, names: named(_persistence))
@attached(memberAttribute)
@attached(
    extension, conformances: Model,
    names: named(schema), named(columnName), named(keyPath), named(associations), named(init),
    named(databaseValues), named(hasLifecycleCallbacks))
public macro Model(table: String? = nil) = #externalMacro(module: "StrataMacros", type: "ModelMacro")

/// Stores the property under an explicit column name instead of its snake_case name.
@attached(peer)
public macro Column(_ name: String) = #externalMacro(module: "StrataMacros", type: "MarkerMacro")

/// Stores a `Date` property in another tool's date form (see ``DateFormat``), under an explicit column name:
/// `@Column("InvoiceDate", dateFormat: .sqlDateTime) var invoiceDate: Date`.
@attached(peer)
public macro Column(_ name: String, dateFormat: DateFormat) =
    #externalMacro(module: "StrataMacros", type: "MarkerMacro")

/// Stores a `Date` property in another tool's date form (see ``DateFormat``) under its snake_case name:
/// `@Column(dateFormat: .unixMilliseconds) var seenAt: Date`.
@attached(peer)
public macro Column(dateFormat: DateFormat) = #externalMacro(module: "StrataMacros", type: "MarkerMacro")

/// Fills a `Date` (or `Date?`) property with the time of the model's first save (UTC, whole microseconds).
@attached(peer)
public macro CreatedAt() = #externalMacro(module: "StrataMacros", type: "MarkerMacro")

/// Fills a `Date` (or `Date?`) property with the time of each save, and of bulk `update()`.
@attached(peer)
public macro UpdatedAt() = #externalMacro(module: "StrataMacros", type: "MarkerMacro")

/// Makes an integer property the optimistic-lock version: each save of a stored model updates
/// `WHERE id = ? AND version = ?` and increments it, throwing ``StrataError/staleRecord(model:id:version:)``
/// when someone else saved (or deleted) the row first.
@attached(peer)
public macro Version() = #externalMacro(module: "StrataMacros", type: "MarkerMacro")

/// Makes the model soft-deleted through a `Date?` property: `delete` sets it instead of deleting the row, and
/// queries, `find`, eager loads and joins skip such rows unless asked (`withDeleted()`, `onlyDeleted()`).
@attached(peer)
public macro DeletedAt() = #externalMacro(module: "StrataMacros", type: "MarkerMacro")

/// Keeps the property out of the database; it needs a default value.
@attached(peer)
public macro Transient() = #externalMacro(module: "StrataMacros", type: "MarkerMacro")

/// Added by `@Model` to each stored property it tracks: a `didSet` that marks the property's column
/// changed, so `save` updates only assigned columns. Not meant to be written by hand.
@attached(accessor, names: named(didSet))
public macro _ChangeTracked(_ column: Int) = #externalMacro(module: "StrataMacros", type: "ChangeTrackedMacro")
