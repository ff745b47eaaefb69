/// Stands for a third-party module named `Crypto` (see Package.swift).
public enum CryptoMarker {
    public static let moduleName = "Crypto"
}
