@testable import ReelServer
import Testing

@Suite struct ListenAddressTests {
    @Test func parsesHostsAndPorts() throws {
        #expect(try ListenAddress(parsing: "127.0.0.1:8080").description == "127.0.0.1:8080")
        #expect(try ListenAddress(parsing: "8080").description == "127.0.0.1:8080")
        #expect(try ListenAddress(parsing: "localhost:0").description == "127.0.0.1:0")
        #expect(try ListenAddress(parsing: "[::1]:9000").description == "[::1]:9000")
        #expect(try ListenAddress(parsing: "0.0.0.0:80").isLoopback == false)
        #expect(try ListenAddress(parsing: "127.0.0.2:80").isLoopback)
        #expect(try ListenAddress(parsing: "[::1]:80").isLoopback)
        for bad in ["", "host:80", "127.0.0.1:", "127.0.0.1:70000", "[::1]", "::1:80", "1.2.3.4:-1"] {
            #expect(throws: (any Error).self, "\(bad)") { try ListenAddress(parsing: bad) }
        }
    }
}
