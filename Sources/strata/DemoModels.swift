// DemoModels: the two models of the demo story.
import Foundation
import Strata

@Model
struct Group {
    var id: Int64?
    var title: String
    static let users = hasMany(User.self, onDelete: .destroy)  // foreign key users.group_id
}

@Model
struct Project {
    var id: Int64?
    var name: String
}

@Model
struct Membership {
    var id: Int64?
    var userID: Int64?
    var projectID: Int64?
    var role = "member"
    static let user = belongsTo(User.self)
    static let project = belongsTo(Project.self)
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

    static let group = belongsTo(Group.self)
    static let projects = hasMany(Project.self, through: Membership.self)

    static var indexes: [Index] { [.on(\User.email, unique: true)] }

    static func validations(_ v: inout Validations<Self>) {
        v.presence(\.name)
        v.uniqueness(\.email)
        v.format(\.email, matches: #/.+@.+/#)
    }
}
