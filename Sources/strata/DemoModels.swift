// DemoModels: the two models of the demo story.
import Foundation
import Strata

@Model
struct Group {
    var id: Int64?
    var title: String
}

@Model
struct User {
    var id: Int64?
    var name: String
    var email: String
    var active = true
    var joinedAt = Date()
    var tags: [String] = []
    var groupID: Int64?
    @Transient var draft = ""

    static var indexes: [Index] { [.on(\User.email, unique: true)] }
    static var foreignKeys: [ForeignKey] { [.from(\User.groupID, to: Group.self)] }

    static func validations(_ v: inout Validations<Self>) {
        v.presence(\.name)
        v.uniqueness(\.email)
        v.format(\.email, matches: #/.+@.+/#)
    }
}
