// Model+Callbacks: the lifecycle hooks' defaults: every callback does nothing, and models declare none (see `Model.hasLifecycleCallbacks`).
extension Model {
    public static var hasLifecycleCallbacks: Bool { false }
    public mutating func willValidate(_ tx: Transaction) throws {}
    public func didValidate(_ tx: Transaction) throws {}
    public mutating func willSave(_ tx: Transaction) throws {}
    public mutating func willCreate(_ tx: Transaction) throws {}
    public mutating func willUpdate(_ tx: Transaction) throws {}
    public func didCreate(_ tx: Transaction) throws {}
    public func didUpdate(_ tx: Transaction) throws {}
    public func didSave(_ tx: Transaction) throws {}
    public func willDelete(_ tx: Transaction) throws {}
    public func didDelete(_ tx: Transaction) throws {}
}
