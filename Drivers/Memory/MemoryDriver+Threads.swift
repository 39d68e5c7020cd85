// MemoryDriver+Threads: whether memory calls may block: only a write that waits for another connection.

extension MemoryDriver {
    /// True while the store has more than one connection open: then a write may wait for another
    /// connection's transaction, and concurrent calls run on their connections' own threads so the
    /// wait never holds a cooperative thread. With one connection (the default pool of 1) a call only
    /// computes, for microseconds, and always runs on the caller's thread.
    public var callsMayBlock: Bool { store.isShared }
}
