// Database+ReplicaURL: reads the `replicas=` URL parameter (and Configuration.replicas) into replica drivers' sources.

extension Database {
    /// Splits the replicas off a URL: the URL without its `replicas` parameter (for the primary), and one source
    /// per replica of that parameter and of ``Configuration/replicas``, each the primary's URL with the
    /// replica's host and port.
    ///
    /// - Throws: ``StrataError/invalidURL(_:reason:)`` for a malformed entry (empty, a bad port, an unbracketed
    ///   IPv6 address) or for replicas on a driver that does not connect to a server host.
    static func replicaSources(
        _ url: DatabaseURL, configuration: Configuration, factory: DriverFactory
    ) throws(StrataError) -> (primary: DatabaseURL, replicas: [ReplicaSource]) {
        var primary = url
        let listed = primary.parameters.removeValue(forKey: "replicas")
        var entries: [String] = []
        if let listed { entries.append(listed) }
        entries += configuration.replicas
        guard !entries.isEmpty else { return (primary, []) }
        guard factory.parameters.contains("host") else {
            throw .invalidURL(
                url.original, reason: "replicas need a driver that connects to a server host, not \(url.scheme)")
        }
        var hosts: [DatabaseURL.Host] = []
        for entry in entries {
            do {
                hosts += try URLParser(original: url.original).hostList(Substring(entry))
            } catch {
                guard case .invalidURL(_, let reason) = error else { throw error }
                throw .invalidURL(url.original, reason: "replicas '\(entry)': \(reason)")
            }
        }
        let sources = hosts.map { host in
            var replica = primary
            replica.host = host.name
            replica.port = host.port ?? primary.port ?? primary.parameters["port"].flatMap { Int($0) }
            replica.hosts = [DatabaseURL.Host(host.name, port: replica.port)]
            replica.parameters.removeValue(forKey: "host")
            replica.parameters.removeValue(forKey: "port")
            replica = factory.replicaURL(replica)
            let name = host.name.contains(":") ? "[\(host.name)]" : host.name
            let config = configuration
            return ReplicaSource(
                name: replica.port.map { "\(name):\($0)" } ?? name,
                make: { [replica] in try factory.make(replica, config) })
        }
        return (primary, sources)
    }
}
