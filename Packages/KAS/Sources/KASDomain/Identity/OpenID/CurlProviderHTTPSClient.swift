import CKASCurl
import Foundation

/// libcurl's global state, initialised once before the first handle (curl_global_init is not
/// thread-safe; a Swift static is initialised exactly once).
private enum KASCurlGlobal {
    static let isInitialized: Bool = kas_curl_global_init() == CURLE_OK
}

/// GETs a provider's documents with libcurl: `https` only (libcurl is told to speak no other
/// protocol), the configured CA bundle or the system's, redirects followed by hand and only to
/// the same host and port, the body bounded while it arrives (a declared `Content-Length` over
/// the bound is refused before any byte is read), the whole exchange within the time limit.
package struct CurlProviderHTTPSClient: ProviderHTTPSClient {
    package init() {}

    package func get(_ request: ProviderHTTPSRequest) throws(OpenIDProviderError) -> ProviderHTTPSResponse {
        guard let origin = HTTPSOrigin(request.url) else { throw Self.notHTTPS(request.url) }
        let deadline = Date().addingTimeInterval(request.timeoutSeconds)
        var url = request.url
        for _ in 0...ProviderHTTPSRequest.maximumRedirects {
            switch try transfer(url, request, deadline: deadline) {
            case .answer(let response):
                return response
            case .redirect(let location):
                guard let next = HTTPSOrigin(location) else { throw Self.notHTTPS(location) }
                guard next == origin else {
                    throw OpenIDProviderError(.redirectToAnotherHost,
                                              "\(Self.shown(url)) redirects to another host (\(next.host):\(next.port)); "
                                              + "configure the provider's own URL as the issuer")
                }
                url = location
            }
        }
        throw OpenIDProviderError(.tooManyRedirects, "\(Self.shown(request.url)) redirects more than "
                                  + "\(ProviderHTTPSRequest.maximumRedirects) times")
    }

    private static func notHTTPS(_ url: String) -> OpenIDProviderError {
        HTTPSOrigin.isPlainHTTP(url)
            ? OpenIDProviderError(.plainHTTP, "\(shown(url)) is plain http: OpenID discovery and key sets are fetched over https only")
            : OpenIDProviderError(.plainHTTP, "an OpenID provider URL must be https:// with a host and no user-info")
    }

    /// URLs come from the configuration or the provider's documents: capped in messages.
    static func shown(_ url: String) -> String { "'\(url.prefix(200))'" }

    private enum Outcome {
        case answer(ProviderHTTPSResponse)
        case redirect(String)
    }

    private func transfer(_ url: String, _ request: ProviderHTTPSRequest,
                          deadline: Date) throws(OpenIDProviderError) -> Outcome {
        let remaining = deadline.timeIntervalSinceNow
        guard remaining > 0 else {
            throw OpenIDProviderError(.transport, "\(Self.shown(request.url)) did not answer within \(request.timeoutSeconds) s")
        }
        guard KASCurlGlobal.isInitialized, let handle = curl_easy_init() else {
            throw OpenIDProviderError(.transport, "libcurl could not be initialised")
        }
        defer { curl_easy_cleanup(handle) }
        let collector = ResponseCollector(limit: request.maximumBodyBytes)
        let context = Unmanaged.passUnretained(collector).toOpaque()
        let headers: UnsafeMutablePointer<curl_slist>? = curl_slist_append(nil, "Accept: application/json")
        defer { curl_slist_free_all(headers) }
        let milliseconds = max(1, Int(remaining * 1000))
        var setup = [
            kas_curl_setopt_string(handle, CURLOPT_URL, url),
            kas_curl_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "https"),
            kas_curl_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 0),
            // Worker and refresher threads: libcurl must not use signals for its timeouts.
            kas_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1),
            kas_curl_setopt_long(handle, CURLOPT_TIMEOUT_MS, milliseconds),
            kas_curl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, milliseconds),
            kas_curl_setopt_long(handle, CURLOPT_SSL_VERIFYPEER, 1),
            kas_curl_setopt_long(handle, CURLOPT_SSL_VERIFYHOST, 2),
            kas_curl_setopt_off(handle, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(request.maximumBodyBytes)),
            kas_curl_setopt_slist(handle, CURLOPT_HTTPHEADER, headers),
            kas_curl_set_write_callback(handle, { data, size, count, context in
                guard let context, let data else { return 0 }
                let collector = Unmanaged<ResponseCollector>.fromOpaque(context).takeUnretainedValue()
                return collector.append(UnsafeRawBufferPointer(start: data, count: size * count)) ? size * count : 0
            }, context),
            kas_curl_set_header_callback(handle, { data, size, count, context in
                guard let context, let data else { return 0 }
                let collector = Unmanaged<ResponseCollector>.fromOpaque(context).takeUnretainedValue()
                collector.header(UnsafeRawBufferPointer(start: data, count: size * count))
                return size * count
            }, context),
        ]
        if let caFile = request.caFile { setup.append(kas_curl_setopt_string(handle, CURLOPT_CAINFO, caFile)) }
        guard setup.allSatisfy({ $0 == CURLE_OK }) else {
            throw OpenIDProviderError(.transport, "libcurl refused an option (a libcurl without https support?)")
        }
        let code = curl_easy_perform(handle)
        if collector.exceeded || code == CURLE_FILESIZE_EXCEEDED {
            throw OpenIDProviderError(.bodyTooLarge, "\(Self.shown(url)) sent more than \(request.maximumBodyBytes) bytes")
        }
        guard code == CURLE_OK else {
            let detail = String(cString: curl_easy_strerror(code))
            throw OpenIDProviderError(.transport, "\(Self.shown(url)) could not be fetched: \(detail)")
        }
        var status = 0
        _ = kas_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        switch status {
        case 200:
            return .answer(ProviderHTTPSResponse(body: collector.body, cacheControl: collector.cacheControl))
        case 301, 302, 303, 307, 308:
            var location: UnsafeMutablePointer<CChar>?
            guard kas_curl_getinfo_string(handle, CURLINFO_REDIRECT_URL, &location) == CURLE_OK, let location else {
                throw OpenIDProviderError(.httpStatus, "\(Self.shown(url)) answered \(status) without a usable Location")
            }
            return .redirect(String(cString: location))
        default:
            throw OpenIDProviderError(.httpStatus, "\(Self.shown(url)) answered HTTP \(status), not 200")
        }
    }
}

/// The body and headers of one transfer, filled by libcurl's callbacks on the calling thread.
private final class ResponseCollector {
    let limit: Int
    var body = Data()
    var exceeded = false
    var cacheControl: String?

    init(limit: Int) { self.limit = limit }

    /// False (abort the transfer) once the body would pass the limit.
    func append(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard body.count + bytes.count <= limit else {
            exceeded = true
            return false
        }
        body.append(contentsOf: bytes)
        return true
    }

    /// One header line; a status line starts a new response (after a 1xx), forgetting the last.
    func header(_ bytes: UnsafeRawBufferPointer) {
        let line = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if line.hasPrefix("HTTP/") {
            cacheControl = nil
            return
        }
        guard let colon = line.firstIndex(of: ":"),
              line[..<colon].trimmingCharacters(in: .whitespaces).lowercased() == "cache-control" else { return }
        let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        cacheControl = cacheControl.map { "\($0), \(value)" } ?? value
    }
}
