// AESGCMKeyring: AES-256-GCM sealing of encrypted columns under a keyring of named keys, with rotation.
import Crypto
import Foundation
import Strata

/// Seals `@Encrypted` columns with AES-256-GCM (swift-crypto; CryptoKit on Apple platforms).
///
/// ```swift
/// let keyring = try AESGCMKeyring([
///     AESGCMKeyring.Key(id: "2025", base64: oldKey),      // still opens what it sealed
///     AESGCMKeyring.Key(id: "2026", base64: newKey),      // the last key seals every new write
/// ])
/// var configuration = Configuration()
/// configuration.encryption = keyring
/// let db = try Database.open("sqlite:app.sqlite", configuration: configuration)
/// ```
///
/// Each stored value is an envelope: a version byte (1), the key id's length and UTF-8 bytes, a 12-byte nonce, the
/// ciphertext and the 16-byte tag. The header and the column's table and name are authenticated, so an altered
/// byte, another key or a value copied from another column fails to open. A randomized column takes a random
/// nonce; a deterministic one a nonce derived with HMAC-SHA256 from the column and the plaintext (a synthetic IV),
/// so equal values seal to equal bytes under one key. Each key is expanded with HKDF into a sealing key and a
/// nonce key, so no key serves both AES and HMAC.
public struct AESGCMKeyring: ColumnEncryption {
    /// One 256-bit key and the id stored in the envelopes it seals.
    public struct Key: Sendable {
        /// The id written into each envelope (1 to 255 UTF-8 bytes); not secret.
        public let id: String
        let sealing: SymmetricKey
        let nonces: SymmetricKey

        /// A key from its 32 bytes.
        ///
        /// - Throws: ``StrataError/invalidArgument(_:reason:)`` naming `key` when it is not 32 bytes, or `id` when
        ///   the id is empty or longer than 255 bytes. The message never shows the key.
        public init(id: String, bytes: Data) throws(StrataError) {
            guard !id.isEmpty, id.utf8.count <= 255 else {
                throw .invalidArgument("id", reason: "a key id is 1 to 255 UTF-8 bytes")
            }
            guard bytes.count == 32 else {
                throw .invalidArgument(
                    "key", reason: "key '\(id)' is \(bytes.count) bytes; AES-256-GCM takes 32 (256 bits)")
            }
            self.id = id
            let master = SymmetricKey(data: bytes)
            sealing = HKDF<SHA256>.deriveKey(
                inputKeyMaterial: master, info: Data("strata column seal".utf8), outputByteCount: 32)
            nonces = HKDF<SHA256>.deriveKey(
                inputKeyMaterial: master, info: Data("strata column nonce".utf8), outputByteCount: 32)
        }

        /// A key from its 32 bytes in base64 (as an environment variable or a secret store holds it).
        ///
        /// - Throws: ``StrataError/invalidArgument(_:reason:)`` naming `key` when the text is no base64 or not 32
        ///   bytes.
        public init(id: String, base64: String) throws(StrataError) {
            guard let bytes = Data(base64Encoded: base64.trimmingCharacters(in: .whitespacesAndNewlines)) else {
                throw .invalidArgument("key", reason: "key '\(id)' is not base64")
            }
            try self.init(id: id, bytes: bytes)
        }

        /// A new random key (for tests and for making a key to store: `Data` of 32 random bytes).
        public static func random(id: String) throws(StrataError) -> Key {
            try Key(id: id, bytes: SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) })
        }
    }

    /// The keys, oldest first; the last one seals.
    public let keys: [Key]
    private let byID: [String: Int]

    /// A keyring whose last key seals new values and whose every key opens the values it sealed.
    ///
    /// - Throws: ``StrataError/invalidArgument(_:reason:)`` naming `keys` when the list is empty or repeats an id.
    public init(_ keys: [Key]) throws(StrataError) {
        guard !keys.isEmpty else { throw .invalidArgument("keys", reason: "a keyring needs at least one key") }
        var byID: [String: Int] = [:]
        for (i, key) in keys.enumerated() {
            guard byID.updateValue(i, forKey: key.id) == nil else {
                throw .invalidArgument("keys", reason: "key id '\(key.id)' appears twice")
            }
        }
        self.keys = keys
        self.byID = byID
    }

    /// The id of the key that seals new values.
    public var currentKeyID: String { keys[keys.count - 1].id }

    static let version: UInt8 = 1

    public func seal(_ plaintext: Data, for column: EncryptedColumn) throws(StrataError) -> Data {
        try seal(plaintext, for: column, with: keys[keys.count - 1])
    }

    public func equalityEnvelopes(_ plaintext: Data, for column: EncryptedColumn) throws(StrataError) -> [Data] {
        var out: [Data] = []
        for key in keys.reversed() { out.append(try seal(plaintext, for: column, with: key)) }
        return out
    }

    public func open(_ envelope: Data, for column: EncryptedColumn) throws(StrataError) -> Data {
        let bytes = [UInt8](envelope)
        guard bytes.count >= 2, bytes[0] == Self.version else {
            throw column.error("the stored value is no version-\(Self.version) envelope")
        }
        let idLength = Int(bytes[1])
        let headerLength = 2 + idLength
        guard bytes.count >= headerLength + 12 + 16,
            let id = String(bytes: bytes[2..<headerLength], encoding: .utf8)
        else { throw column.error("the stored envelope is truncated") }
        guard let index = byID[id] else { throw column.error("the keyring holds no key '\(id)'") }
        let header = Data(bytes[0..<headerLength])
        do {
            let box = try AES.GCM.SealedBox(combined: Data(bytes[headerLength...]))
            return try AES.GCM.open(box, using: keys[index].sealing, authenticating: header + column.authenticatedData)
        } catch {
            throw column.error(
                "the envelope does not open under key '\(id)': altered, sealed with another key, or for another column"
            )
        }
    }

    private func seal(_ plaintext: Data, for column: EncryptedColumn, with key: Key) throws(StrataError) -> Data {
        var header = Data([Self.version, UInt8(key.id.utf8.count)])
        header.append(contentsOf: Array(key.id.utf8))
        do {
            let nonce: AES.GCM.Nonce
            switch column.mode {
            case .randomized: nonce = AES.GCM.Nonce()
            case .deterministic:
                var message = column.authenticatedData
                message.append(0)
                message.append(plaintext)
                let mac = HMAC<SHA256>.authenticationCode(for: message, using: key.nonces)
                nonce = try AES.GCM.Nonce(data: Data(mac).prefix(12))
            }
            let box = try AES.GCM.seal(
                plaintext, using: key.sealing, nonce: nonce, authenticating: header + column.authenticatedData)
            guard let combined = box.combined else { throw column.error("AES-GCM gave no combined box") }
            return header + combined
        } catch let error as StrataError {
            throw error
        } catch {
            throw column.error("sealing failed")
        }
    }
}
