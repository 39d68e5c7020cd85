// Check: the assertions conformance cases use; a failure names the case's expectation.
import Strata

/// A failed expectation inside a conformance case.
struct ConformanceFailure: Error, CustomStringConvertible {
    let description: String
}

func check(_ condition: Bool, _ message: @autoclosure () -> String) throws {
    if !condition { throw ConformanceFailure(description: message()) }
}

func checkEqual<T: Equatable>(_ actual: T, _ expected: T, _ what: @autoclosure () -> String) throws {
    if actual != expected {
        throw ConformanceFailure(description: "\(what()): expected \(expected), got \(actual)")
    }
}

/// Expects `body` to throw a ``StrataError`` that `matches` accepts.
func checkThrows<T>(_ what: String, _ matches: (StrataError) -> Bool, _ body: () async throws -> T) async throws {
    do {
        _ = try await body()
    } catch let StrataError.unsupported(feature, driver) {
        throw StrataError.unsupported(feature: feature, driver: driver)
    } catch let error as StrataError {
        if !matches(error) { throw ConformanceFailure(description: "\(what): wrong error \(error)") }
        return
    } catch {
        throw ConformanceFailure(description: "\(what): untyped error \(error)")
    }
    throw ConformanceFailure(description: "\(what): expected an error, none was thrown")
}

/// Expects a synchronous body to throw a matching ``StrataError``.
func checkThrowsSync<T>(_ what: String, _ matches: (StrataError) -> Bool, _ body: () throws -> T) throws {
    do {
        _ = try body()
    } catch let error as StrataError {
        if case .unsupported = error { throw error }
        if !matches(error) { throw ConformanceFailure(description: "\(what): wrong error \(error)") }
        return
    } catch {
        throw ConformanceFailure(description: "\(what): untyped error \(error)")
    }
    throw ConformanceFailure(description: "\(what): expected an error, none was thrown")
}
