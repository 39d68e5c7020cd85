// Todo: the example's one model: a title that must not be blank, a done flag, and an optimistic-lock version.
import Strata

@Model(table: "todo")
struct Todo: Codable, Sendable, Equatable {
    var id: Int64?
    var title: String
    var done = false
    @Version var version: Int64 = 0  // each update checks it: a client that read an older one gets 409

    static func validations(_ v: inout Validations<Self>) {
        v.presence(\.title)
        v.length(\.title, in: 0...200, message: "is longer than 200 characters")
    }
}
