/// Stands for a third-party module named `JSON` (see Package.swift).
public enum JSONMarker {
    public static let moduleName = "JSON"
}
