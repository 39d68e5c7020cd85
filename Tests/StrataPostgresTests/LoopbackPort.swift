// LoopbackPort: whether a port on 127.0.0.1 answers, and a listener there that never answers, for replica tests.
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A TCP listener on 127.0.0.1 (a port the kernel picks) that never accepts: a client's connection completes
/// in the kernel's backlog and then hears nothing, like a frozen server or a black-holed route.
final class SilentListener {
    let port: Int
    private let socket: Int32

    /// Binds and listens.
    ///
    /// - Throws: `POSIXError` when the socket cannot be made, bound or listened on.
    init() throws {
        let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        var address = LoopbackPort.address(0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && listen(fd, 16) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else {
            Glibc.close(fd)
            throw POSIXError(.init(rawValue: errno) ?? .EIO)
        }
        socket = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// Closes the listener (the connections waiting in its backlog are reset).
    func close() { Glibc.close(socket) }
}

/// Probes of ports on 127.0.0.1.
enum LoopbackPort {
    /// Whether something accepts TCP connections on 127.0.0.1:`port`.
    static func answers(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var target = address(port)
        return withUnsafePointer(to: &target) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    /// `127.0.0.1:port` as a socket address.
    static func address(_ port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = in_addr_t(0x7f00_0001).bigEndian
        return address
    }
}
