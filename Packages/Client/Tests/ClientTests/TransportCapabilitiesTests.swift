import Testing
@testable import Client

@Suite struct TransportCapabilitiesTests {
    @Test func linkedLibcurlSpeaksHTTPSOverOpenSSL() {
        let caps = TransportCapabilities.current()
        #expect(caps.supportsHTTPS)
        #expect(caps.sslBackend.hasPrefix("OpenSSL"))
        #expect(caps.libcurlVersion.split(separator: ".").count == 3)
    }
}
