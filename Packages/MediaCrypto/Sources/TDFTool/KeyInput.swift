import MediaDRMTDF
import MediaDRMToolSupport

/// Reads the KAS keys named on the command line, with errors that name the file and its role.
enum KeyInput {
    static func publicKey(_ path: String) throws(ToolFailure) -> KASPublicKey {
        let pem = try FileInput.readText(path, role: "KAS public key", maxBytes: 64 << 10)
        do {
            return try KASPublicKey(pemRepresentation: pem)
        } catch {
            throw ToolFailure("KAS public key '\(path)': not an RSA (2048 bits or more) or P-256 public key in PEM form")
        }
    }

    static func privateKey(_ path: String) throws(ToolFailure) -> KASPrivateKey {
        let pem = try FileInput.readText(path, role: "KAS private key", maxBytes: 64 << 10)
        do {
            return try KASPrivateKey(pemRepresentation: pem)
        } catch {
            throw ToolFailure("KAS private key '\(path)': not an unencrypted RSA (2048 bits or more) or P-256 private key in PEM form")
        }
    }
}
