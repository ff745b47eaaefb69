// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
/// What a protected component carries (fps-v2 §3): each component is one stream with its own
/// content key. Version 2 has exactly one `video` and at most one `audio` component, each id equal
/// to its kind (`MediaComponentList.version2Order`); the id is kept apart from the kind
/// (`MediaComponentList.Entry`) so that a later version can list more renditions or languages of
/// one kind under their own ids.
public enum MediaComponentKind: String, Sendable, Equatable, Hashable, CaseIterable {
    case video
    case audio

    /// The component id, which version 2 fixes to the kind.
    public var id: String { rawValue }
}
