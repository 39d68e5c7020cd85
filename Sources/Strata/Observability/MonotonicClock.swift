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
