/// Stands for a third-party module named `ZIP` (see Package.swift).
public enum ZIPMarker {
    public static let moduleName = "ZIP"
}
