import Testing
@testable import KAS

@Suite struct KASURLTests {
    @Test(arguments: [
        ("https://platform.arkavo.net", "https://platform.arkavo.net"),
        ("HTTPS://Platform.Arkavo.NET/", "https://platform.arkavo.net"),
        ("https://platform.arkavo.net:443", "https://platform.arkavo.net"),
        ("https://platform.arkavo.net:8443/", "https://platform.arkavo.net:8443"),
        ("http://127.0.0.1:80", "http://127.0.0.1"),
        ("http://[::1]:8080", "http://[::1]:8080"),
    ])
    func normalises(_ pair: (String, String)) {
        #expect(KASURL.normalize(pair.0) == pair.1)
    }

    @Test(arguments: [
        "https://platform.arkavo.net/kas", "https://platform.arkavo.net?x=1", "https://platform.arkavo.net#f",
        "https://user@platform.arkavo.net", "ftp://platform.arkavo.net", "platform.arkavo.net", "https://",
        "https://platform.arkavo.net:0", "https://platform.arkavo.net:99999", "https://platform.arkavo.net:+443",
        "https://platform.arkavo.net//",
    ])
    func refuses(_ text: String) {
        #expect(KASURL.normalize(text) == nil)
    }
}
