@testable import KAS
@testable import KASDomain
@testable import KASHTTP
@testable import KASObservability
@testable import KASRedis
import Testing

@Suite struct RedisURLTests {
    @Test func theFormsOfTheURLParse() throws {
        let plain = try RedisURL("redis://127.0.0.1")
        #expect(plain == RedisURL(host: "127.0.0.1", port: 6379))
        #expect(plain.redacted == "redis://127.0.0.1:6379/0")

        let acl = try RedisURL("redis://kas:s%40cret%2F1@redis.internal:6380/3")
        #expect(acl.user == "kas" && acl.password == "s@cret/1")
        #expect(acl.host == "redis.internal" && acl.port == 6380 && acl.database == 3)
        #expect(acl.redacted == "redis://kas:***@redis.internal:6380/3")
        #expect("\(acl)" == acl.redacted)

        let passwordOnly = try RedisURL("redis://:pw@[::1]:7000/")
        #expect(passwordOnly.user == nil && passwordOnly.password == "pw")
        #expect(passwordOnly.host == "::1" && passwordOnly.port == 7000 && passwordOnly.database == 0)
        #expect(passwordOnly.redacted == "redis://:***@[::1]:7000/0")
        #expect(try RedisURL(passwordOnly.unredacted) == passwordOnly)
        #expect(try RedisURL(acl.unredacted) == acl)
    }

    @Test(arguments: [
        ("http://h:1", "does not start with redis://"),
        ("rediss://:pw@h:1", "TLS"),
        ("redis://", "has no host"),
        ("redis://:hunter2@", "has no host"),
        ("redis://:hunter2@h:0", "port '0'"),
        ("redis://:hunter2@h:65536", "port '65536'"),
        ("redis://:hunter2@h:x", "port 'x'"),
        ("redis://:hunter2@h/abc", "database 'abc'"),
        ("redis://:hunter2@h/-1", "database '-1'"),
        ("redis://:hunter2@[::1", "closing ']'"),
        ("redis://:hunter2@h?db=1", "query"),
        ("redis://:hunter2%zz@h", "password that is not valid percent-encoding"),
        ("redis://:hunter2@h o", "characters not allowed"),
    ])
    func badURLsNameThePartAndNeverThePassword(text: String, reason: String) {
        #expect {
            _ = try RedisURL(text)
        } throws: { error in
            guard let error = error as? RedisError else { return false }
            return error.code == .configuration && error.reason.contains(reason) && !error.reason.contains("hunter2")
        }
    }
}
