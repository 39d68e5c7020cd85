// FuzzURL: libFuzzer target for DatabaseURL parsing: any text parses or throws a typed error, never traps.
import FuzzSupport
import Strata

/// Parses the input as a URL (and as a URL built around it) and checks what a parsed URL promises.
public func fuzzDatabaseURL(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let text = String(decoding: input.bytes, as: UTF8.self)
    check(text)
    // The same bytes behind each scheme, so the scheme-specific parsers see them even when the
    // fuzzer has not found a scheme yet.
    let prefix = input.pick(["sqlite:", "sqlite://", "sqlite:///", "memory:", "postgres://", "postgresql://u:p@"])
    check(prefix + text)
    return 0
}

/// Factories reading URLs as the built-in drivers declare them (this target links no driver); never opened.
private let drivers: [DriverFactory] = [
    DriverFactory(schemes: ["sqlite", "sqlite3"], module: "Fuzz", urlSyntax: .path(missing: "missing SQLite file path"))
    {
        _, _ in throw StrataError.unsupported(feature: "opening", driver: "fuzz")
    },
    DriverFactory(schemes: ["memory", "mem"], module: "Fuzz", urlSyntax: .path("store name")) { _, _ in
        throw StrataError.unsupported(feature: "opening", driver: "fuzz")
    },
    DriverFactory(schemes: ["postgres", "postgresql"], module: "Fuzz", urlSyntax: .server) { _, _ in
        throw StrataError.unsupported(feature: "opening", driver: "fuzz")
    },
]

private func check(_ text: String) {
    let url: DatabaseURL
    do {
        url = try DatabaseURL(text, drivers: drivers)
    } catch {
        _ = error.description  // a typed StrataError whose message can be shown
        return
    }
    guard ["sqlite", "memory", "postgres"].contains(url.scheme) else {
        fuzzFailure("unexpected scheme \(url.scheme) for \(text.debugDescription)")
    }
    if url.scheme == "sqlite" {
        if url.path.isEmpty { fuzzFailure("empty SQLite path accepted: \(text.debugDescription)") }
        // A NUL ends the path at the C API: the file opened would not be the one named.
        if url.path.unicodeScalars.contains("\0") {
            fuzzFailure("SQLite path with NUL accepted: \(text.debugDescription) → \(url.path.debugDescription)")
        }
    }
    if let port = url.port, !(1...65535).contains(port) { fuzzFailure("port \(port) accepted") }
    // The description redacts the password: a password of 6+ characters that occurs once in the
    // text never shows in it.
    if let password = url.password, password.count >= 6, text.components(separatedBy: password).count == 2,
        url.description.contains(password)
    {
        fuzzFailure("password shown in description of \(text.debugDescription)")
    }
    // Parsing is a function of the text.
    guard let again = try? DatabaseURL(text, drivers: drivers), again == url else {
        fuzzFailure("parsing \(text.debugDescription) twice disagrees")
    }
}
