/// Every fuzz target, in the order `make fuzz` runs them (docs/fuzzing.md).
public enum FuzzTargets {
    public static let all: [FuzzTarget] = [
        JSONTarget.target,
        ZIPTarget.target,
        TDFTargets.manifest,
        TDFTargets.archive,
        JOSETarget.target,
        PEMTarget.target,
        MP4Target.target,
        FragmentedMP4Target.target,
        DemuxTarget.target,
        H264Target.target,
        HEVCTarget.target,
        HEVCSliceTarget.target,
        WebVTTTarget.target,
        HLSTarget.target,
        FPSv2Target.target,
        KASTargets.proto,
        KASTargets.manifest,
        KASTargets.mediaRoutes,
        BackendRequestTarget.target,
        RESPTarget.target,
        SKDKeyURITarget.target,
    ]

    public static func named(_ name: String) -> FuzzTarget? {
        all.first { $0.name == name }
    }

    /// Stops what the targets started (the in-process KAS); the harness calls it at exit.
    public static func shutDown() {
        KASFixture.stopIfStarted()
    }
}
