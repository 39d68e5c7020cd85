// PeakMemory: the resident set and its high-water mark from /proc, and resetting that mark (Linux).
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Measures peak memory around one run.
///
/// `VmHWM` (the resident high-water mark) is process-wide and only grows, so a later workload would
/// inherit an earlier one's peak. Linux lets a process reset it (`5` into `/proc/self/clear_refs`), which
/// this does right before each stream run, after handing the allocator's free pages back to the kernel
/// (`malloc_trim`): otherwise memory freed by an earlier workload stays resident, gets reused, and hides
/// the stream's own growth. The peak then belongs to that run alone, in this process, with no child
/// process to spawn. Where the reset is refused the figures say so (`exact == false`); the stream runs
/// first on each backend, so it is the least disturbed.
enum PeakMemory {
    /// What one run grew the resident set to.
    struct Reading {
        /// Resident bytes just before the run.
        var before: Int
        /// The resident high-water mark at the end of the run.
        var peak: Int
        /// Whether the mark was reset before the run (else it may predate the run).
        var exact: Bool
        var growth: Int { max(0, peak - before) }
    }

    /// Resets the mark, runs `body`, and reads the peak it reached.
    static func measure<T>(_ body: () async throws -> T) async rethrows -> (T, Reading?) {
        trimHeap()
        let exact = resetHighWater()
        guard let before = status("VmRSS:") else { return (try await body(), nil) }
        let result = try await body()
        guard let peak = status("VmHWM:") else { return (result, nil) }
        return (result, Reading(before: before, peak: peak, exact: exact))
    }

    /// glibc's `malloc_trim(0)`, looked up at run time (Swift's Glibc module does not import malloc.h).
    static func trimHeap() {
        #if os(Linux)
            typealias Trim = @convention(c) (Int) -> Int32
            guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return }
            _ = unsafeBitCast(symbol, to: Trim.self)(0)
        #endif
    }

    /// Resets VmHWM to the current resident size; false where the kernel does not allow it.
    static func resetHighWater() -> Bool {
        let fd = open("/proc/self/clear_refs", O_WRONLY)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return write(fd, "5", 1) == 1
    }

    /// A `kB` line of /proc/self/status, in bytes.
    static func status(_ key: String) -> Int? {
        guard let file = fopen("/proc/self/status", "r") else { return nil }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 256)
        while fgets(&line, Int32(line.count), file) != nil {
            let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            guard text.hasPrefix(key) else { continue }
            let digits = text.dropFirst(key.count).filter(\.isNumber)
            return Int(digits).map { $0 * 1_024 }
        }
        return nil
    }
}
