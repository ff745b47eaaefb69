/// Bounds a reader applies before it allocates or reads, and the range a writer accepts for its
/// segment size. Every size a manifest declares is checked against these first.
public struct TDFLimits: Sendable, Equatable {
    /// Largest `0.manifest.json` read (bytes).
    public var maxManifestBytes: Int = 32 << 20
    /// Largest plaintext segment, reader and writer (bytes). Bounds one allocation.
    public var maxSegmentSize: Int = 64 << 20
    /// Smallest segment size a writer accepts (bytes).
    public var minSegmentSize: Int = 1
    /// Most segments in one payload.
    public var maxSegments: Int = 1 << 20
    /// Most key access objects in one manifest.
    public var maxKeyAccessObjects: Int = 64
    /// Largest total plaintext (bytes); the OpenTDF SDKs stop at 64 GiB.
    public var maxPayloadBytes: Int64 = 64 << 30
    /// Largest plaintext returned in memory by the `Data` decrypt calls (bytes).
    public var maxInMemoryBytes: Int = 1 << 30
    /// Largest decoded policy (bytes).
    public var maxPolicyBytes: Int = 1 << 20

    public init() {}

    public static let `default` = TDFLimits()
}
