import Foundation

extension KASConfiguration {
    /// The FairPlay deployment (file section `fairplay`): the application certificate bundle
    /// served by `GET /media/v1/certificate` and how the KAS reaches Apple's FairPlay Streaming
    /// Server SDK. The SDK keeps its credentials (the FPS private key and the ASK) in its own
    /// configuration: the KAS never reads them, it only hands the SDK JSON requests.
    public struct FairPlaySettings: Sendable, Equatable {
        public enum SDKTransport: Sendable, Equatable {
            /// An executable implementing the SDK's JSON interface: one request document on
            /// stdin, one response document on stdout, exit status 0.
            case command(executable: String, arguments: [String])
            /// A service wrapping the SDK: the request document POSTed as the body, the response
            /// document as the answer (https, or http to a loopback host).
            case url(String)
        }

        /// DER application certificate bundle, served as is.
        public var certificateFile: String
        public var transport: SDKTransport
        /// Bound on one SDK call (process run or HTTP exchange).
        public var timeoutSeconds: Int

        public static let defaultTimeoutSeconds = 10
        public static let timeoutRange = 1...300
        /// Largest certificate bundle read; Apple's are a few kilobytes.
        static let maximumCertificateBytes = 1 << 20

        public init(certificateFile: String, transport: SDKTransport, timeoutSeconds: Int = defaultTimeoutSeconds) {
            self.certificateFile = certificateFile
            self.transport = transport
            self.timeoutSeconds = timeoutSeconds
        }

        /// What `kas serve` runs with: the certificate bytes and the SDK module. Reads the
        /// certificate and checks the command at start-up, so a wrong path stops the server
        /// with the file named instead of failing the first key request.
        package func deployment() throws(KASConfigurationError) -> FairPlayDeployment {
            let certificate = try readCertificate()
            let module: FairPlaySDKModule
            switch transport {
            case .command(let executable, let arguments):
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: executable, isDirectory: &isDirectory), !isDirectory.boolValue,
                      FileManager.default.isExecutableFile(atPath: executable)
                else {
                    throw KASConfigurationError(.unreadableFile, "the FairPlay SDK command '\(executable)' is not an executable file")
                }
                let command = FairPlayCommandTransport(executable: executable, arguments: arguments, timeoutSeconds: timeoutSeconds)
                module = FairPlaySDKModule(transport: { body in try command.send(body) })
            case .url(let text):
                guard let url = URL(string: text) else {
                    throw ConfigValue.invalid("fairplay.sdkURL", "an http(s) URL")
                }
                let http = FairPlayHTTPTransport(url: url, timeoutSeconds: timeoutSeconds)
                module = FairPlaySDKModule(transport: { body in try http.send(body) })
            }
            return FairPlayDeployment(certificate: certificate, module: module)
        }

        private func readCertificate() throws(KASConfigurationError) -> Data {
            let path = certificateFile
            let attributes: [FileAttributeKey: Any]
            do {
                attributes = try FileManager.default.attributesOfItem(atPath: path)
            } catch {
                throw KASConfigurationError(.unreadableFile, "cannot read the FairPlay certificate '\(path)'")
            }
            if let size = attributes[.size] as? NSNumber, size.intValue > Self.maximumCertificateBytes {
                throw KASConfigurationError(.unreadableFile, "the FairPlay certificate '\(path)' is larger than 1 MiB")
            }
            guard let data = FileManager.default.contents(atPath: path) else {
                throw KASConfigurationError(.unreadableFile, "cannot read the FairPlay certificate '\(path)'")
            }
            // DER starts with a SEQUENCE; a PEM file here would be served to players as garbage.
            guard data.first == 0x30 else {
                throw KASConfigurationError(.invalidValue,
                                            "the FairPlay certificate '\(path)' is not DER (convert PEM with 'openssl x509 -outform der')")
            }
            return data
        }
    }
}

/// The FairPlay pieces the app assembly installs.
package struct FairPlayDeployment: Sendable {
    /// The application certificate bundle for `GET /media/v1/certificate`.
    public let certificate: Data
    public let module: any FairPlayKeyModule

    public init(certificate: Data, module: any FairPlayKeyModule) {
        self.certificate = certificate
        self.module = module
    }
}
