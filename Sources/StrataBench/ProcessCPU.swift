// ProcessCPU: CPU seconds, context switches and allocations of this process (and its children's CPU), per statement.
import CBenchValgrind
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// User plus system CPU time, in seconds, and context switches: this process's (all its threads) and its
/// ended children's; and this process's calls into the C allocator (CBenchValgrind's MallocCounter.c, glibc).
///
/// On a shared machine a rate moves with the load; the CPU one side spends per statement moves much
/// less, so the throughput workloads print both, with the share spent in the kernel and the context
/// switches (a thread going to sleep or being preempted) that explain most of it.
struct ProcessCPU {
    /// What one `getrusage` reports.
    struct Usage {
        var seconds = 0.0
        var systemSeconds = 0.0
        var switches = 0.0
        /// Calls into the C allocator; nil where they are not counted (a child, or not glibc).
        var allocations: Double?

        static func - (a: Usage, b: Usage) -> Usage {
            Usage(
                seconds: a.seconds - b.seconds, systemSeconds: a.systemSeconds - b.systemSeconds,
                switches: a.switches - b.switches,
                allocations: a.allocations.flatMap { x in b.allocations.map { x - $0 } })
        }

        /// "N µs CPU (S µs in the kernel), C context switches, A allocations per statement" for `statements`
        /// statements.
        func perStatement(_ statements: Double) -> String {
            guard statements > 0 else { return "no statements" }
            let allocated = allocations.map { ", \(Format.fixed($0 / statements, 1)) allocations" } ?? ""
            return "\(Format.fixed(seconds / statements * 1e6, 1)) µs CPU per statement"
                + " (\(Format.fixed(systemSeconds / statements * 1e6, 1)) µs in the kernel,"
                + " \(Format.fixed(switches / statements, 2)) context switches\(allocated))"
        }
    }

    let ownUsage: Usage
    let childrenUsage: Usage
    var own: Double { ownUsage.seconds }
    var children: Double { childrenUsage.seconds }

    /// The CPU used so far.
    static func now() -> ProcessCPU {
        #if canImport(Glibc)
            let own = __rusage_who_t(RUSAGE_SELF.rawValue)
            let children = __rusage_who_t(RUSAGE_CHILDREN.rawValue)
        #else
            let own = RUSAGE_SELF
            let children = RUSAGE_CHILDREN
        #endif
        var ownUsage = usage { getrusage(own, &$0) }
        if strata_bench_counts_allocations() != 0 { ownUsage.allocations = Double(strata_bench_allocations()) }
        return ProcessCPU(ownUsage: ownUsage, childrenUsage: usage { getrusage(children, &$0) })
    }

    private static func usage(_ read: (inout rusage) -> Int32) -> Usage {
        var usage = rusage()
        _ = read(&usage)
        func s(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        return Usage(
            seconds: s(usage.ru_utime) + s(usage.ru_stime), systemSeconds: s(usage.ru_stime),
            switches: Double(usage.ru_nvcsw + usage.ru_nivcsw))
    }
}
