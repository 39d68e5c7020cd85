// InstructionCounter: counts one side's instructions in one workload's timed section with callgrind.
import Foundation

/// Runs this program again under `valgrind --tool=callgrind --instr-atstart=no`, in its `--once` mode:
/// the child prepares the workload uninstrumented, runs it once to warm up, then turns instrumentation
/// on for exactly one timed section (``Instrumentation``) and off again. Callgrind's total is then the
/// instructions of that section, on every thread of the child. Times on a shared machine swing by a
/// third between runs; these counts move by well under 1 %, so their ratio is the repeatable figure.
/// PostgreSQL's counts are the client's only: the server runs in its own processes, not under valgrind.
struct InstructionCounter {
    let options: BenchOptions
    let valgrind: String

    /// valgrind on `PATH`, when this build can talk to callgrind; else why not.
    static func find() -> Result<String, BenchError> {
        guard Instrumentation.available else {
            return .failure(BenchError("this build has no valgrind headers (install valgrind and rebuild)"))
        }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin"
        let found = path.split(separator: ":").map { "\($0)/valgrind" }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
        return found.map { .success($0) } ?? .failure(BenchError("valgrind is not on PATH"))
    }

    /// A copy of this program without its DWARF 5 debug information, which valgrind 3.19 cannot read
    /// (it gives up on the whole run); the symbol table stays, so callgrind still names functions.
    private func strippedExecutable() throws -> String {
        guard let exe = options.selfCommand.first else { throw BenchError("instruction counts need the bench command") }
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("strata-bench-stripped-\(getpid())")
            .path
        if FileManager.default.fileExists(atPath: copy) { return copy }
        guard let strip = ChildProcess.find("strip"),
            try ChildProcess.run(strip, ["--strip-debug", "-o", copy, exe]).status == 0
        else {
            throw BenchError("strip --strip-debug failed on \(exe) (binutils is needed for --instructions)")
        }
        return copy
    }

    /// Removes the stripped copy.
    func cleanUp() {
        try? FileManager.default.removeItem(
            at: FileManager.default.temporaryDirectory.appendingPathComponent("strata-bench-stripped-\(getpid())"))
    }

    /// What callgrind counted in one timed section.
    struct Counts {
        /// Instructions executed (Ir).
        var instructions: Int
        /// Calls into the C allocator (see ``InstructionCounter/allocations(in:)``).
        var allocations: Int
    }

    /// The instructions `side` runs in one timed section of `workload` on `backend`, and its allocations.
    func count(_ backend: Backend, _ workload: Workload, _ side: Side) throws -> Counts {
        guard !options.selfCommand.isEmpty else { throw BenchError("instruction counts need the bench command") }
        let out = FileManager.default.temporaryDirectory
            .appendingPathComponent("strata-callgrind-\(getpid())-\(backend.rawValue)-\(workload.rawValue)-\(side)")
            .path
        defer { try? FileManager.default.removeItem(atPath: out) }
        var arguments = [
            "--tool=callgrind", "--instr-atstart=no", "--callgrind-out-file=\(out)",
        ]
        arguments += [try strippedExecutable()] + options.selfCommand.dropFirst()
        arguments += [
            "--backends", backend.rawValue, "--only", workload.rawValue, "--once", "--side", side.rawValue,
            "--scale", "\(options.instructionScale ?? options.scale)", "--postgres-url", options.postgresURL,
        ]
        if let dir = options.directory { arguments += ["--dir", dir] }
        if options.observed { arguments += ["--observed"] }  // the counts are of the run the times are of
        let (status, output) = try ChildProcess.run(valgrind, arguments)
        guard status == 0 else {
            throw BenchError("the callgrind run of \(side.rawValue) \(workload.rawValue) failed:\n\(output)")
        }
        guard let text = try? String(contentsOfFile: out, encoding: .utf8), let n = Self.total(in: text) else {
            throw BenchError("callgrind wrote no total for \(side.rawValue) \(workload.rawValue)")
        }
        return Counts(instructions: n, allocations: Self.allocations(in: text))
    }

    /// The C allocator's entry points: a call to one is one allocation (Swift's objects, arrays and strings
    /// reach it through `swift_slowAlloc`; libsqlite3 and libpq call it directly).
    static let allocators: Set<Substring> = [
        "malloc", "calloc", "realloc", "posix_memalign", "aligned_alloc", "memalign",
    ]

    /// Calls into the C allocator (``allocators``) in a callgrind output file: the sum of the `calls=` counts of
    /// every call whose callee (`cfn=`, names compressed as `(id) name` the first time and `(id)` after) is one.
    static func allocations(in text: String) -> Int {
        var names: [Substring: Substring] = [:]
        /// The function a `fn=`/`cfn=` value names, learning a compressed name on its first use.
        func name(_ value: Substring) -> Substring {
            guard value.first == "(", let close = value.firstIndex(of: ")") else { return value }
            let id = value[...close]
            let rest = value[value.index(after: close)...].drop { $0 == " " }
            if rest.isEmpty { return names[id] ?? "" }
            names[id] = rest
            return rest
        }
        var calleeAllocates = false
        // A call from an allocator to one (the bench's own `malloc`, MallocCounter.c, calling glibc's, which
        // callgrind names `malloc` too) is the same allocation.
        var callerAllocates = false
        var total = 0
        for line in text.split(separator: "\n") {
            if line.hasPrefix("cfn=") {
                calleeAllocates = !callerAllocates && allocators.contains(name(line.dropFirst(4)))
            } else if line.hasPrefix("fn=") {
                callerAllocates = allocators.contains(name(line.dropFirst(3)))
                calleeAllocates = false
            } else if calleeAllocates, line.hasPrefix("calls=") {
                total += Int(line.dropFirst(6).prefix { $0 != " " }) ?? 0
            }
        }
        return total
    }

    /// The `totals:` figure of a callgrind output file: instructions executed (Ir).
    static func total(in text: String) -> Int? {
        for line in text.split(separator: "\n") {
            // With --instr-atstart=no the summary line says 0; the totals line holds the count.
            if line.hasPrefix("totals:") {
                return line.dropFirst("totals:".count).split(separator: " ").first.flatMap { Int($0) }
            }
        }
        return nil
    }
}
