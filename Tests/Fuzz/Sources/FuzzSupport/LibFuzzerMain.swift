// LibFuzzerMain: each fuzz executable's main hands its one-input function to libFuzzer's driver.
import CFuzzer

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs libFuzzer over `testOneInput` with the process's arguments (`-max_total_time=…`, corpus
/// directories, a crash file to replay) and exits with its status.
///
/// SwiftPM gives every executable target its own `main`, so libFuzzer's `main` is never linked; this is
/// the replacement, through `LLVMFuzzerRunDriver`.
public func runLibFuzzer(_ testOneInput: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> Never {
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv, testOneInput))
}
