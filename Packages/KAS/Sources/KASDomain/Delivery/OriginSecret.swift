import Foundation
import MediaDRMCrypto
import MediaDRMEncoding

/// The secrets nginx's `secure_link_md5` and the KAS share (docs/delivery.md#secrets-and-rotation).
/// Their file is an nginx include (mode 0600) that the `server` block of `kas origin-config`
/// includes, so a secret is written once and never printed:
///
/// ```
/// set $origin_secret_1 "<secret>";
/// set $origin_secret_2 "<secret>";
/// set $origin_signing_slot "1";
/// ```
///
/// nginx accepts a URL signed with either slot (the URL's `slot` parameter names it; it is not
/// signed, and naming the wrong slot only makes the check fail). The KAS signs with
/// `$origin_signing_slot`. Two slots are the rotation window: the new secret goes into the
/// slot not in use, nginx reloads, then the KAS signs with it while URLs of the old one live on.
package struct OriginSecret: Sendable, Equatable, CustomStringConvertible {
    /// The slot the KAS signs with, 1 or 2.
    public let signingSlot: Int
    /// base64url characters only (nothing nginx would need to unquote), at least 32 of them.
    let signingSecret: String

    static let slots = [1, 2]
    static let slotVariable = "origin_signing_slot"
    static func secretVariable(_ slot: Int) -> String { "origin_secret_\(slot)" }
    static let minimumLength = 32

    init(signingSlot: Int, signingSecret: String) {
        self.signingSlot = signingSlot
        self.signingSecret = signingSecret
    }

    /// Reads the file: regular, not a symlink, mode 0600 (or stricter), both slots set to valid
    /// secrets and the signing slot named.
    public static func load(path: String) throws(DeliverySecretError) -> OriginSecret {
        let file = try read(path)
        return OriginSecret(signingSlot: file.signingSlot, signingSecret: file.secrets[file.signingSlot] ?? "")
    }

    /// Creates the file with two fresh secrets, slot 1 signing, when it does not exist; true when it did not.
    public static func createIfAbsent(path: String) throws(DeliverySecretError) -> Bool {
        guard !FileManager.default.fileExists(atPath: path) else { return false }
        try write(path, secrets: [1: try freshSecret(), 2: try freshSecret()], signingSlot: 1)
        return true
    }

    /// Puts a fresh secret into the slot that is not signing and makes it the signing slot;
    /// returns that slot. The other slot keeps its secret, so URLs it signed stay valid.
    public static func rotate(path: String) throws(DeliverySecretError) -> Int {
        var file = try read(path)
        let slot = file.signingSlot == 1 ? 2 : 1
        file.secrets[slot] = try freshSecret()
        try write(path, secrets: file.secrets, signingSlot: slot)
        return slot
    }

    private static func read(_ path: String) throws(DeliverySecretError) -> (secrets: [Int: String], signingSlot: Int) {
        let bytes = try DeliverySecretError.readFile(path, "origin secret file")
        guard let text = String(bytes: bytes, encoding: .utf8) else {
            throw DeliverySecretError("the origin secret file '\(path)' is not UTF-8 text")
        }
        var values: [String: String] = [:]
        for line in text.split(whereSeparator: \.isNewline) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            guard let (name, value) = parse(trimmed) else {
                throw DeliverySecretError("the origin secret file '\(path)' has a line other than 'set $origin_secret_1 \"...\";', "
                                          + "'set $origin_secret_2 \"...\";' and 'set $origin_signing_slot \"1\";' (or \"2\")")
            }
            values[name] = value
        }
        var secrets: [Int: String] = [:]
        for slot in slots { secrets[slot] = values[secretVariable(slot)] }
        guard let slotText = values[slotVariable], let slot = Int(slotText), slots.contains(slot), secrets.count == slots.count
        else {
            throw DeliverySecretError("the origin secret file '\(path)' must set $origin_secret_1, $origin_secret_2 and "
                                      + "$origin_signing_slot (1 or 2); 'kas origin-config' writes a fresh one")
        }
        return (secrets, slot)
    }

    private static func write(_ path: String, secrets: [Int: String], signingSlot: Int) throws(DeliverySecretError) {
        let text = "# The origin secrets of nginx secure_link and the KAS (docs/delivery.md). Keep this file 0600.\n"
            + slots.map { "set $\(secretVariable($0)) \"\(secrets[$0] ?? "")\";\n" }.joined()
            + "set $\(slotVariable) \"\(signingSlot)\";\n"
        do {
            try SecureFiles.writeAtomically(Data(text.utf8), to: path, mode: 0o600)
        } catch {
            throw DeliverySecretError("cannot write the origin secret file: \(error.reason)")
        }
    }

    /// `set $name "value";` for one of the file's variables with a valid value.
    private static func parse(_ line: String) -> (String, String)? {
        let parts = line.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 3, parts[0] == "set", parts[1].hasPrefix("$"), parts[2].hasPrefix("\""), parts[2].hasSuffix("\";"),
              parts[2].count >= 3 else { return nil }
        let name = String(parts[1].dropFirst())
        let value = String(parts[2].dropFirst().dropLast(2))
        if name == slotVariable { return slots.contains(Int(value) ?? 0) ? (name, value) : nil }
        guard slots.map(secretVariable).contains(name), isValid(value) else { return nil }
        return (name, value)
    }

    static func isValid(_ value: String) -> Bool {
        (minimumLength...512).contains(value.utf8.count) && value.utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
    }

    /// 32 random bytes, base64url.
    static func freshSecret() throws(DeliverySecretError) -> String {
        do {
            return Base64URL.encode(try SecureRandom.bytes(count: 32))
        } catch {
            throw DeliverySecretError("the system random generator is unavailable")
        }
    }

    public var description: String { "OriginSecret(slot \(signingSlot), secret redacted)" }
}

/// A delivery secret file that cannot be used; the reason names the file, never its content.
package struct DeliverySecretError: Error, Equatable, Sendable, CustomStringConvertible {
    public let reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { reason }

    /// A secret file's bytes: a regular file (not a symlink), 0600 or stricter, at most 1 MiB.
    static func readFile(_ path: String, _ what: String) throws(DeliverySecretError) -> [UInt8] {
        do {
            return try SecureFiles.read(path, privateFile: true, missing: KeyRingError(.io, "the \(what) '\(path)' does not exist"))
        } catch {
            throw DeliverySecretError("cannot use the \(what): \(error.reason)")
        }
    }
}
