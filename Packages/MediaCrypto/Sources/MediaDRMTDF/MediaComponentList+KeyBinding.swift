// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import MediaDRMCrypto
import MediaDRMMedia

extension MediaComponentList.Entry {
    /// A version 2 component whose `keyBinding` is computed from its content key (fps-v2 §5.3).
    public init(kind: MediaComponentKind, key: SecretKey) {
        self.init(kind: kind, keyBinding: TDFBinding.keyBinding(componentID: kind.id, key: key))
    }

    /// An entry whose `keyBinding` is computed from its content key, for any id and kind a writer
    /// names (a test of another writer's list, say).
    public init(id: String, kind: String, key: SecretKey) {
        self.init(id: id, kind: kind, keyBinding: TDFBinding.keyBinding(componentID: id, key: key))
    }
}
