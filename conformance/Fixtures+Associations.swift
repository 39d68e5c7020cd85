// Fixtures+Associations: the seeds' world: teams with members, members with projects through memberships.
import Strata

@Model(table: "conf_team")
struct ConfTeam: Equatable {
    var id: Int64?
    var title: String
    /// Conventional key: `ConfTeam` → `conf_team_id` on ConfMember.
    static let members = hasMany(ConfMember.self, onDelete: .destroy)
    static let lead = hasOne(ConfBadge.self, onDelete: .destroy)
}

/// The same table with a nullify rule, for the seeds' "with nullify the users stay" scenario.
@Model(table: "conf_team")
struct ConfTeamNullify {
    var id: Int64?
    var title: String
    static let members = hasMany(ConfMember.self, key: \.confTeamID, onDelete: .nullify)
}

/// The same table with a restrict rule.
@Model(table: "conf_team")
struct ConfTeamRestrict {
    var id: Int64?
    var title: String
    static let members = hasMany(ConfMember.self, key: \.confTeamID, onDelete: .restrict)
}

@Model(table: "conf_member")
struct ConfMember: Equatable {
    var id: Int64?
    var name: String
    var confTeamID: Int64?
    var managerID: Int64?
    static let team = belongsTo(ConfTeam.self)
    static let manager = belongsTo(ConfMember.self, key: \.managerID)
    static let reports = hasMany(ConfMember.self, key: \.managerID, onDelete: .nullify)
    static let projects = hasMany(ConfProject.self, through: ConfMembership.self)
}

@Model(table: "conf_project")
struct ConfProject: Equatable {
    var id: Int64?
    var name: String
}

@Model(table: "conf_membership")
struct ConfMembership {
    var id: Int64?
    var confMemberID: Int64?
    var confProjectID: Int64?
    var role = "member"
    static let member = belongsTo(ConfMember.self)
    static let project = belongsTo(ConfProject.self)
}

/// The member table read without associations, to join by explicit columns.
@Model(table: "conf_member")
struct ConfBadgeless {
    var id: Int64?
    var name: String
    var confTeamID: Int64?
    var managerID: Int64?
}

/// A team's single badge (hasOne).
@Model(table: "conf_badge")
struct ConfBadge: Equatable {
    var id: Int64?
    var label: String
    var confTeamID: Int64?
    static let team = belongsTo(ConfTeam.self)
}

extension Fixtures {
    static let associationTables = ["conf_membership", "conf_badge", "conf_member", "conf_project", "conf_team"]

    static func migrateAssociations(_ db: Database) async throws {
        try await db.migrate(ConfTeam.self, ConfMember.self, ConfProject.self, ConfMembership.self, ConfBadge.self)
    }

    /// Two teams; red has Ann (manager) and Bob (reports to Ann); blue has Cid. Ann and Bob work on
    /// Apollo, Bob on Gemini too, Cid on Gemini.
    struct World {
        var red: ConfTeam
        var blue: ConfTeam
        var ann: ConfMember
        var bob: ConfMember
        var cid: ConfMember
        var apollo: ConfProject
        var gemini: ConfProject
    }

    static func seedWorld(_ db: Database) async throws -> World {
        try await migrateAssociations(db)
        return try await db.transaction { tx in
            var red = ConfTeam(title: "red")
            var blue = ConfTeam(title: "blue")
            var ann = ConfMember(name: "Ann")
            var bob = ConfMember(name: "Bob")
            var cid = ConfMember(name: "Cid")
            try red.add(&ann, to: ConfTeam.members, tx)
            try bob.set(ConfMember.manager, to: ann)
            try red.add(&bob, to: ConfTeam.members, tx)
            try blue.add(&cid, to: ConfTeam.members, tx)
            var apollo = ConfProject(name: "Apollo")
            var gemini = ConfProject(name: "Gemini")
            try ann.add(&apollo, to: ConfMember.projects, tx)
            try bob.add(&apollo, to: ConfMember.projects, tx)
            try bob.add(&gemini, to: ConfMember.projects, tx)
            try cid.add(&gemini, to: ConfMember.projects, tx)
            return World(red: red, blue: blue, ann: ann, bob: bob, cid: cid, apollo: apollo, gemini: gemini)
        }
    }
}
