import Testing

// One namespace per source area, so `swift test --filter 'Keys|Config|Identity|Tool'` selects
// exactly this suites.
@Suite enum KeysTests {}
@Suite enum ConfigTests {}
@Suite enum IdentityTests {}
@Suite enum ToolTests {}
@Suite enum AppTests {}
