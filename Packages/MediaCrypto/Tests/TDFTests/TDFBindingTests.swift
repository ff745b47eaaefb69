import MediaDRMCrypto
import MediaDRMEncoding
import Foundation
import Testing
@testable import MediaDRMTDF

@Suite("Policy bindings and keyBinding")
struct TDFBindingTests {
    static let videoKey = SecretKey(data: Array(0x00...0x0f) as [UInt8])
    static let audioKey = SecretKey(data: Array(0x10...0x1f) as [UInt8])

    /// fps-v2 Appendix A.1.
    @Test("keyBinding: Appendix A vectors")
    func keyBindingVectors() {
        #expect(TDFBinding.keyBinding(componentID: "video", key: Self.videoKey) == "9n5YWFmN3MC7g9kJH/tZ98P5JMMEGIz1C+zwHbchEB4=")
        #expect(TDFBinding.keyBinding(componentID: "audio", key: Self.audioKey) == "rVO1aH+bdtNnKvDGX38OaorFTRMJsPMGbMJNGKKLU3Q=")
        #expect(TDFBinding.keyBinding(componentID: "video", key: Self.audioKey) == "4WqNpABYVXOM11ru1ClCNaEZZ8HOCCY+Ag0tppvil80=")
        #expect(TDFBinding.isValidKeyBinding("9n5YWFmN3MC7g9kJH/tZ98P5JMMEGIz1C+zwHbchEB4=", componentID: "video", key: Self.videoKey))
        #expect(!TDFBinding.isValidKeyBinding("4WqNpABYVXOM11ru1ClCNaEZZ8HOCCY+Ag0tppvil80=", componentID: "video", key: Self.videoKey))
    }

    /// The same value computed by the openssl CLI's HMAC, not by this project's HMAC.
    @Test("keyBinding agrees with openssl HMAC", arguments: ["video", "audio", "x"])
    func keyBindingIndependent(id: String) throws {
        let key = SecretKey(data: pattern(16, seed: 42))
        let hexKey = Hex.encode(pattern(16, seed: 42))
        let mac = try openssl(["mac", "-digest", "SHA256", "-macopt", "hexkey:\(hexKey)", "-binary", "HMAC"],
                              input: Data(("arkavo:fps:component:v1:" + id).utf8))
        #expect(TDFBinding.keyBinding(componentID: id, key: key) == Base64.encode(mac))
    }

    /// fps-v2 Appendix A.1/A.2: raw bindings over base64(after).
    @Test("policy binding: Appendix A vectors (raw form)")
    func policyBindingVectors() {
        let after = #"{"arkavo:components":[{"id":"video","kind":"video","keyBinding":"9n5YWFmN3MC7g9kJH/tZ98P5JMMEGIz1C+zwHbchEB4="},{"id":"audio","kind":"audio","keyBinding":"rVO1aH+bdtNnKvDGX38OaorFTRMJsPMGbMJNGKKLU3Q="}],"#
            + String(TDFPolicyTests.appendixBefore.dropFirst())
        let policy = Base64.encode(Data(after.utf8))
        #expect(TDFBinding.policyBinding(policyBase64: policy, key: Self.videoKey, form: .raw) == "YfWHFTZaDRIdmvAJhng0YHwLLHeKeEYNGKXCXd9wWqc=")
        #expect(TDFBinding.policyBinding(policyBase64: policy, key: Self.audioKey, form: .raw) == "BYwGfQat7pK/d/NCvjZZqIryPOUA72NPx+1O/oBXF5A=")
    }

    @Test("both forms verify, and each is what it claims to be")
    func bothForms() throws {
        let key = SecretKey(data: pattern(32))
        let policy = Base64.encode(Data(#"{"uuid":"u","body":{}}"#.utf8))
        let raw = TDFBinding.policyBinding(policyBase64: policy, key: key, form: .raw)
        let hex = TDFBinding.policyBinding(policyBase64: policy, key: key, form: .hex)
        let mac = try openssl(["mac", "-digest", "SHA256", "-macopt", "hexkey:\(Hex.encode(pattern(32)))", "-binary", "HMAC"],
                              input: Data(policy.utf8))
        #expect(raw == Base64.encode(mac))
        #expect(hex == Base64.encode(Data(Hex.encode(mac).utf8)))
        #expect(TDFBinding.isValidPolicyBinding(raw, policyBase64: policy, key: key))
        #expect(TDFBinding.isValidPolicyBinding(hex, policyBase64: policy, key: key))
        // Upper-case hex (some writers) verifies too.
        #expect(TDFBinding.isValidPolicyBinding(Base64.encode(Data(Hex.encode(mac).uppercased().utf8)), policyBase64: policy, key: key))
    }

    @Test("bindings that do not match are refused")
    func mismatches() throws {
        let key = SecretKey(data: pattern(32))
        let policy = Base64.encode(Data(#"{"uuid":"u","body":{}}"#.utf8))
        let raw = TDFBinding.policyBinding(policyBase64: policy, key: key, form: .raw)
        let otherKey = SecretKey(data: pattern(32, seed: 1))
        #expect(!TDFBinding.isValidPolicyBinding(raw, policyBase64: policy, key: otherKey))
        #expect(!TDFBinding.isValidPolicyBinding(raw, policyBase64: policy + "", key: otherKey))
        #expect(!TDFBinding.isValidPolicyBinding(raw, policyBase64: Base64.encode(Data("{}".utf8)), key: key))
        var truncated = try Base64.decode(raw)
        truncated.removeLast()
        #expect(!TDFBinding.isValidPolicyBinding(Base64.encode(truncated), policyBase64: policy, key: key))
        #expect(!TDFBinding.isValidPolicyBinding("not base64!", policyBase64: policy, key: key))
        #expect(!TDFBinding.isValidPolicyBinding(raw.replacingOccurrences(of: "=", with: ""), policyBase64: policy, key: key))
        #expect(!TDFBinding.isValidPolicyBinding("", policyBase64: policy, key: key))
    }
}
