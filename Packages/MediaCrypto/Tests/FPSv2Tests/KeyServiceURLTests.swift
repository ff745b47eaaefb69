import Testing
@testable import MediaDRMFPSv2

struct KeyServiceURLTests {
    @Test(arguments: [
        ("https://platform.arkavo.net", "https://platform.arkavo.net"),
        ("https://platform.arkavo.net/", "https://platform.arkavo.net"),
        ("HTTPS://Platform.Arkavo.NET:443", "https://platform.arkavo.net"),
        ("https://kas.example.com:8443/", "https://kas.example.com:8443"),
        ("http://127.0.0.1:8080", "http://127.0.0.1:8080"),
        ("http://[::1]:80/", "http://[::1]"),
    ])
    func normalizes(text: String, expected: String) {
        #expect(KeyServiceURL.normalize(text) == expected)
    }

    @Test(arguments: ["https://platform.arkavo.net/kas", "https://platform.arkavo.net?x=1", "https://platform.arkavo.net#f",
                      "https://user@platform.arkavo.net", "http://platform.arkavo.net", "ftp://platform.arkavo.net",
                      "platform.arkavo.net", "https://", "https://host:0", "https://host:99999", "https://host:", "https://ho st"])
    func refuses(text: String) {
        #expect(KeyServiceURL.normalize(text) == nil)
    }
}
