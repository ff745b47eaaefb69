import MediaDRMCENC

/// H.264 parameter sets and slice headers as the packager and the client read them: the input
/// is a sample of 4-byte length-prefixed NAL units; SPS and PPS update the parameter sets, and
/// every slice gets its header parsed and its subsample map (the clear prefix) computed.
enum H264Target {
    static let target = FuzzTarget("h264", "H.264 NAL split, SPS/PPS, slice headers, subsample map") { input throws(FuzzViolation) in
        guard let units = try? H264.NALUnit.split(input, lengthSize: 4) else { return .refused }
        var parameterSets = H264.ParameterSets()
        var slices = 0
        for unit in units {
            let bytes = Array(input[unit.range])
            if (try? parameterSets.update(with: bytes)) == true { continue }
            if (try? parameterSets.sliceHeader(of: bytes)) != nil { slices += 1 }
        }
        guard var generator = try? H264SubsampleGenerator(parameterSets: parameterSets, nalUnitLengthSize: 4) else { return .refused }
        guard let subsamples = try? generator.subsamples(for: input) else { return .refused }
        let covered = subsamples.reduce(0) { $0 + Int($1.bytesOfClearData) + Int($1.bytesOfProtectedData) }
        guard covered == input.count else {
            throw FuzzViolation("h264", "the subsample map covers \(covered) bytes of a \(input.count)-byte sample")
        }
        return slices > 0 ? .accepted : .refused
    }
}
