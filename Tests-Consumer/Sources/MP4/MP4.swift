/// Stands for a third-party module named `MP4` (see Package.swift).
public enum MP4Marker {
    public static let moduleName = "MP4"
}
