// MonotonicClock: the time a statement took, in whole nanoseconds, read without Duration's 128-bit arithmetic.
#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A monotonic clock read as nanoseconds.
///
/// Timing a statement with `ContinuousClock` costs about 100 instructions (two `Instant`s, a subtraction and the
/// conversion of a `Duration`, all 128-bit); a statement of a point lookup costs about 2,500. This reads
/// `CLOCK_MONOTONIC` (Darwin and Linux alike) into an `Int64`, and differences are a subtraction.
enum MonotonicClock {
    #if canImport(Darwin) || canImport(Glibc) || canImport(Musl)
        /// Nanoseconds since an arbitrary point, steady while the process runs.
        @inline(__always)
        static func now() -> Int64 {
            var time = timespec()
            clock_gettime(CLOCK_MONOTONIC, &time)
            return Int64(time.tv_sec) &* 1_000_000_000 &+ Int64(time.tv_nsec)
        }
    #else
        private static let origin = ContinuousClock.now

        /// Nanoseconds since an arbitrary point, steady while the process runs.
        static func now() -> Int64 { (ContinuousClock.now - origin).nanoseconds }
    #endif
}

/// A point on ``MonotonicClock``, in nanoseconds: what the pool orders its waiters' deadlines by and times a lease's
/// wait and a loop statement's answer with.
///
/// `ContinuousClock.Instant` is a resilient type of the Swift runtime (its layout is not known to code outside it): each
/// one an async function keeps or makes is a task allocation, each copy and comparison a call (the pool's queued path
/// made about 27 task allocations a statement, most of them for instants). This one is a plain `Int64`.
package struct PoolInstant: Comparable, Sendable {
    /// Nanoseconds on ``MonotonicClock``.
    package let nanoseconds: Int64

    @inline(__always) package init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }

    /// The clock's reading now.
    @inline(__always) package static var now: PoolInstant { PoolInstant(nanoseconds: MonotonicClock.now()) }

    /// The instant `seconds` later (saturating: a far deadline stays the farthest; NaN is the farthest too).
    package func adding(seconds: Double) -> PoolInstant {
        let delta = seconds * 1e9
        guard delta < 9.2e18 else { return PoolInstant(nanoseconds: .max) }
        guard delta > -9.2e18 else { return PoolInstant(nanoseconds: .min) }
        return adding(nanoseconds: Int64(delta))
    }

    /// The instant `duration` later (saturating), or earlier for a negative one.
    package func adding(nanoseconds duration: Int64) -> PoolInstant {
        let (sum, overflow) = nanoseconds.addingReportingOverflow(duration)
        return PoolInstant(nanoseconds: overflow ? (duration < 0 ? .min : .max) : sum)
    }

    /// Nanoseconds from `earlier` to this instant (saturating: from now to a far deadline is the farthest).
    @inline(__always) package func nanoseconds(since earlier: PoolInstant) -> Int64 {
        let (difference, overflow) = nanoseconds.subtractingReportingOverflow(earlier.nanoseconds)
        return overflow ? (earlier.nanoseconds < 0 ? .max : .min) : difference
    }

    package static func < (a: PoolInstant, b: PoolInstant) -> Bool { a.nanoseconds < b.nanoseconds }
}
