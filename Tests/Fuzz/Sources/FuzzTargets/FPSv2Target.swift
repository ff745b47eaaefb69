// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import Client
import MediaDRMFPSv2

/// fps-v2 admission of a whole package (every check of §4–§9 with the fixture key service
/// accepted), then what a player does with an admitted package: every entry read (segment local
/// headers verified on read), each component's init segment rewritten to clear and its segments
/// demuxed and decrypted with the fixture content key.
enum FPSv2Target {
    static let options = FPSv2Admission.Options(acceptedKeyServiceURLs: [FuzzFixtures.keyServiceURL])

    static let target = FuzzTarget("fpsv2-admission", "FPSv2Admission.check/admit of a package; entries read and decrypted",
                                   mutation: .archiveEntries(.exact)) { input throws(FuzzViolation) in
        let package = FPSv2Package(archiveData: input)
        let report = FPSv2Admission.check(package, options: options)
        let admitted = try? FPSv2Admission.admit(package, options: options)
        guard report.isAdmitted == (admitted != nil) else {
            throw FuzzViolation("fpsv2-admission", "check and admit disagree on whether the package is admitted")
        }
        guard let admitted else { return .refused }
        var everySegmentDecrypted = true
        for component in admitted.components {
            guard let initBytes = try? admitted.read(.initSegment(component: component.id)),
                  let clear = try? InitSegmentRewriter.rewrite(Array(initBytes)),
                  let decryptor = try? FragmentDecryptor(initSegment: clear, key: FuzzFixtures.contentKey) else {
                everySegmentDecrypted = false
                continue
            }
            for name in admitted.entryNames {
                guard case .segment(component.id, _) = name else { continue }
                guard let segment = try? admitted.read(name), (try? decryptor.clearSegment(Array(segment))) != nil else {
                    everySegmentDecrypted = false
                    continue
                }
            }
        }
        return everySegmentDecrypted ? .accepted : .refused
    }
}
