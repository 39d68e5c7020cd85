// Model+Callbacks: the lifecycle hooks' defaults: every callback does nothing, and models declare none (see `Model.hasLifecycleCallbacks`).
extension Model {
    /// False: `@Model` sets it to true when the model implements a callback.
    public static var hasLifecycleCallbacks: Bool { false }
    /// Does nothing.
    ///
    /// - Parameter tx: the save's transaction.
    public mutating func willValidate(_ tx: Transaction) throws {}
    /// Does nothing.
    ///
    /// - Parameter tx: the save's transaction.
    public func didValidate(_ tx: Transaction) throws {}
    /// Does nothing.
    ///
    /// - Parameter tx: the save's transaction.
    public mutating func willSave(_ tx: Transaction) throws {}
    /// Does nothing.
    ///
    /// - Parameter tx: the save's transaction.
    public mutating func willCreate(_ tx: Transaction) throws {}
    /// Does nothing.
    ///
    /// - Parameter tx: the save's transaction.
    public mutating func willUpdate(_ tx: Transaction) throws {}
    /// Does nothing.
    ///
    /// - Parameter tx: the save's transaction.
    public func didCreate(_ tx: Transaction) throws {}
    /// Does nothing.
    ///
    /// - Parameter tx: the save's transaction.
    public func didUpdate(_ tx: Transaction) throws {}
    /// Does nothing.
    ///
    /// - Parameter tx: the save's transaction.
    public func didSave(_ tx: Transaction) throws {}
    /// Does nothing.
    ///
    /// - Parameter tx: the delete's transaction.
    public func willDelete(_ tx: Transaction) throws {}
    /// Does nothing.
    ///
    /// - Parameter tx: the delete's transaction.
    public func didDelete(_ tx: Transaction) throws {}
}
