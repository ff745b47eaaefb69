/// The namespace of the media suites, so `swift test --filter Media` selects them all.
enum MediaTests {}
