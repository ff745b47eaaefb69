/// Receives a successful response's body as it arrives instead of in memory, so that a large
/// download goes straight to disk and the bytes that arrived before a dropped connection are
/// kept (a resumable download continues from them).
///
/// Only a 2xx answer reaches the sink; any other status is handled as usual (thrown, or returned
/// with its body in memory). The request's response limit still applies to the bytes delivered.
/// Returning false from either method aborts the transfer, which then fails with
/// `TransportError.Code.sinkRefused`; the sink keeps its own reason.
public protocol ResponseBodySink: AnyObject, Sendable {
    /// The final response's status and headers, before its first body byte.
    func begin(status: Int, headers: TransportHeaders) -> Bool
    /// The next bytes of the body, in order.
    func receive(_ bytes: UnsafeRawBufferPointer) -> Bool
}
