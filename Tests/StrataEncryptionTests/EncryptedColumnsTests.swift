// EncryptedColumnsTests: the article's example runs, envelopes are the documented bytes, trace logs hold no plaintext.
import Foundation
import Logging
import Strata
import StrataEncryption
import StrataMemory
import StrataSQLite
import Synchronization
import Testing

@Model
struct Patient {
    var id: Int64?
    var name: String
    @Encrypted(.deterministic) var ssn: String
    @Encrypted var diagnosis: String?
    static var indexes: [Index] { [.on(\Patient.ssn, unique: true)] }
}

/// Records every log line, to search it for plaintext.
final class LogLines: Sendable {
    let lines = Mutex<[String]>([])

    func logger() -> Logger {
        var logger = Logger(label: "test") { _ in Handler(sink: self) }
        logger.logLevel = .trace
        return logger
    }

    struct Handler: LogHandler {
        let sink: LogLines
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            let all = metadata.merging(event.metadata ?? [:]) { $1 }
            sink.lines.withLock { $0.append("\(event.message) \(all)") }
        }
    }
}

@Suite struct EncryptedColumnsTests {
    @Test func articleExampleRunsOnSQLite() async throws {
        // The example of the article "Encrypted columns".
        let oldKey = Data(repeating: 1, count: 32).base64EncodedString()  // from a secret store, in an app
        let newKey = Data(repeating: 2, count: 32).base64EncodedString()
        let keyring = try AESGCMKeyring([
            AESGCMKeyring.Key(id: "2025", base64: oldKey),
            AESGCMKeyring.Key(id: "2026", base64: newKey),  // the last key seals new values
        ])
        var configuration = Configuration()
        configuration.encryption = keyring
        let db = try Database.open("sqlite::memory:", drivers: [.sqlite], configuration: configuration)
        try await db.migrate(Patient.self)

        var ann = Patient(name: "Ann", ssn: "123-45-6789", diagnosis: "flu")
        try await ann.save(on: db)
        let found = try await Patient.query(on: db).where(\.ssn == "123-45-6789").first()
        #expect(found?.diagnosis == "flu")
        // End of the example.
        db.close()
    }

    @Test func envelopeIsVersionKeyIDNonceCiphertextTag() throws {
        let keyring = try AESGCMKeyring([AESGCMKeyring.Key(id: "k1", bytes: Data(repeating: 9, count: 32))])
        let column = EncryptedColumn(model: "Patient", table: "patient", column: "ssn", mode: .deterministic)
        let plaintext = Data("abc".utf8)
        let envelope = try keyring.seal(plaintext, for: column)
        #expect(Array(envelope.prefix(4)) == [1, 2, UInt8(ascii: "k"), UInt8(ascii: "1")])
        #expect(envelope.count == 4 + 12 + plaintext.count + 16)
        #expect(try keyring.seal(plaintext, for: column) == envelope, "deterministic: the same bytes")
        #expect(try keyring.open(envelope, for: column) == plaintext)
        var moved = column
        moved.column = "name"
        #expect(throws: StrataError.self) { try keyring.open(envelope, for: moved) }
        let randomized = EncryptedColumn(model: "Patient", table: "patient", column: "d", mode: .randomized)
        #expect(try keyring.seal(plaintext, for: randomized) != keyring.seal(plaintext, for: randomized))
    }

    @Test func wrongKeySizeNamesTheParameterNotTheKey() {
        do {
            _ = try AESGCMKeyring.Key(id: "k", bytes: Data(repeating: 0x41, count: 16))
            Issue.record("a 16-byte key was taken")
        } catch {
            guard case .invalidArgument("key", let reason) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(reason.contains("32") && !reason.contains("AAAA"))
        }
    }

    @Test(arguments: ["sqlite::memory:", "memory:"])
    func traceLogsHoldNoPlaintext(url: String) async throws {
        let lines = LogLines()
        var configuration = Configuration(logger: lines.logger(), logBoundValues: true)
        configuration.encryption = try AESGCMKeyring([.random(id: "k")])
        let db = try Database.open(url, drivers: [.sqlite, .memory], configuration: configuration)
        try await db.migrate(Patient.self)
        var p = Patient(name: "P", ssn: "plain-ssn-4242", diagnosis: "plain-diagnosis-4242")
        try await p.save(on: db)
        p.diagnosis = "plain-changed-4242"
        try await p.save(on: db)
        _ = try await Patient.query(on: db).where(\.ssn == "plain-ssn-4242").all()
        _ = try await Patient.find(try #require(p.id), on: db)
        db.close()
        let all = lines.lines.withLock { $0 }
        #expect(all.count > 3)
        #expect(!all.contains { $0.contains("4242") })
    }
}
