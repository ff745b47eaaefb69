/// Stands for a third-party module named `HLS` (see Package.swift).
public enum HLSMarker {
    public static let moduleName = "HLS"
}
