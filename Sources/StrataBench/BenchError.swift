// BenchError: why a benchmark run could not go on (a raw C call failed, a result did not match).

/// A failure of the benchmark itself, with the message to print.
public struct BenchError: Error, CustomStringConvertible {
    /// What went wrong.
    public var description: String

    init(_ description: String) { self.description = description }
}
