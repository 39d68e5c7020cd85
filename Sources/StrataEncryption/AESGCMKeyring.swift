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
        /// HMAC-SHA256 keyed with the nonce key, its inner and outer pads hashed once: each deterministic nonce
        /// copies it (the hash states are copied on write) instead of setting the key up again.
        let nonces: HMAC<SHA256>
        /// The envelope's header under this key: the version byte, the id's length and its UTF-8 bytes.
        let header: Data

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
            nonces = HMAC(
                key: HKDF<SHA256>.deriveKey(
                    inputKeyMaterial: master, info: Data("strata column nonce".utf8), outputByteCount: 32))
            var header = Data([AESGCMKeyring.version, UInt8(id.utf8.count)])
            header.append(contentsOf: Array(id.utf8))
            self.header = header
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
    }

    /// The id of the key that seals new values.
    public var currentKeyID: String { keys[keys.count - 1].id }

    static let version: UInt8 = 1
    /// The byte between the column's identity and the plaintext in a deterministic nonce's message.
    static let separator = Data([0])

    public func seal(_ plaintext: Data, for column: EncryptedColumn) throws(StrataError) -> Data {
        try seal(plaintext, for: column, with: keys[keys.count - 1])
    }

    public func equalityEnvelopes(_ plaintext: Data, for column: EncryptedColumn) throws(StrataError) -> [Data] {
        var out: [Data] = []
        for key in keys.reversed() { out.append(try seal(plaintext, for: column, with: key)) }
        return out
    }

    public func open(_ envelope: Data, for column: EncryptedColumn) throws(StrataError) -> Data {
        let start = envelope.startIndex
        guard envelope.count >= 2, envelope[start] == Self.version else {
            throw column.error("the stored value is no version-\(Self.version) envelope")
        }
        let headerEnd = start + 2 + Int(envelope[start + 1])
        guard envelope.count >= headerEnd - start + 12 + 16 else {
            throw column.error("the stored envelope is truncated")
        }
        let header = envelope[start..<headerEnd]
        // The newest key first: what most envelopes name.
        guard let key = keys.last(where: { $0.header.elementsEqual(header) }) else {
            let id = String(decoding: header.dropFirst(2), as: UTF8.self)
            throw column.error("the keyring holds no key '\(id)'")
        }
        do {
            let box = try AES.GCM.SealedBox(combined: envelope[headerEnd...])
            return try AES.GCM.open(box, using: key.sealing, authenticating: Self.join(header, column))
        } catch {
            throw column.error(
                "the envelope does not open under key '\(key.id)': altered, sealed with another key, or for another "
                    + "column")
        }
    }

    /// The authenticated data of an envelope: its header, then the column's identity.
    private static func join(_ header: Data, _ column: EncryptedColumn) -> Data {
        var out = Data(capacity: header.count + column.authenticatedData.count)
        out.append(header)
        out.append(column.authenticatedData)
        return out
    }

    private func seal(_ plaintext: Data, for column: EncryptedColumn, with key: Key) throws(StrataError) -> Data {
        do {
            let nonce: AES.GCM.Nonce
            switch column.mode {
            case .randomized: nonce = AES.GCM.Nonce()
            case .deterministic:
                // HMAC(nonce key, authenticated data ‖ 0 ‖ plaintext), its first 12 bytes.
                var mac = key.nonces
                mac.update(data: column.authenticatedData)
                mac.update(data: Self.separator)
                mac.update(data: plaintext)
                nonce = try mac.finalize().withUnsafeBytes { b in
                    try AES.GCM.Nonce(data: UnsafeRawBufferPointer(rebasing: b.prefix(12)))
                }
            }
            let box = try AES.GCM.seal(
                plaintext, using: key.sealing, nonce: nonce, authenticating: Self.join(key.header, column))
            guard let combined = box.combined else { throw column.error("AES-GCM gave no combined box") }
            var envelope = Data(capacity: key.header.count + combined.count)
            envelope.append(key.header)
            envelope.append(combined)
            return envelope
        } catch let error as StrataError {
            throw error
        } catch {
            throw column.error("sealing failed")
        }
    }
}
