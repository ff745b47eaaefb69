/// A profile's closed playlist grammar, checked by a strict `HLSParser.Mode` over lines that
/// already passed the strict line grammar, before the model is built. The profile's own module
/// implements it (the fps-v2 grammar lives in MediaDRMFPSv2), so this module stays general HLS.
package protocol HLSClosedGrammar: Sendable {
    func checkMaster(_ lines: [HLSLine], lastLine: Int, limits: HLSLimits) throws(HLSError)
    func checkMedia(_ lines: [HLSLine], lastLine: Int, limits: HLSLimits) throws(HLSError)
}
