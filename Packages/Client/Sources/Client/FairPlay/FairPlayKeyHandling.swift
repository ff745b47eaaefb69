/// What `FairPlayContentKeyDelegate` forwards each AVContentKeySession callback to: our KAS's
/// per-component sessions (`FairPlayKeySession`) or any licence service by its profile
/// (`FairPlayProfileKeySession`).
public protocol FairPlayKeyHandling: AnyObject, Sendable {
    /// `didProvide` (`renewal` false) and `didProvideRenewingContentKeyRequest` (true).
    func provide(_ request: any FairPlayKeyRequest, renewal: Bool) async
    /// `contentKeyRequestDidSucceed`.
    func succeeded(_ request: any FairPlayKeyRequest)
    /// `contentKeyRequest(_:didFailWithError:)`.
    func failed(_ request: any FairPlayKeyRequest)
}

extension FairPlayKeySession: FairPlayKeyHandling {}
