// ProcessCPU: CPU seconds this process and its waited-for children have used, to report CPU per statement.
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// User plus system CPU time, in seconds: this process's (all its threads) and its ended children's.
///
/// On a shared machine a rate moves with the load; the CPU one side spends per statement moves much
/// less, so the throughput workloads print both.
struct ProcessCPU {
    let own: Double
    let children: Double

    /// The CPU used so far.
    static func now() -> ProcessCPU {
        #if canImport(Glibc)
            let own = __rusage_who_t(RUSAGE_SELF.rawValue)
            let children = __rusage_who_t(RUSAGE_CHILDREN.rawValue)
        #else
            let own = RUSAGE_SELF
            let children = RUSAGE_CHILDREN
        #endif
        return ProcessCPU(own: seconds { getrusage(own, &$0) }, children: seconds { getrusage(children, &$0) })
    }

    private static func seconds(_ read: (inout rusage) -> Int32) -> Double {
        var usage = rusage()
        _ = read(&usage)
        func s(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        return s(usage.ru_utime) + s(usage.ru_stime)
    }
}
