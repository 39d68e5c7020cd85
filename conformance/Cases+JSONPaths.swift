// Cases+JSONPaths: filtering, ordering and selecting by a path inside a Codable (JSON) column, alike everywhere.
import Foundation
import Strata

extension ConformanceSuite {
    static let jsonPathCases: [ConformanceCase] = [
        ConformanceCase("json-path.filter-by-a-key-as-its-swift-type") { db in
            try await seedProfiles(db)
            let dark = try await ConfProfile.query(on: db)
                .where(json(\.settings, "theme", as: String.self) == "dark").order(\.id).all()
            try checkEqual(dark.map(\.name), ["ann", "cy"], "theme == dark, case-sensitive (not Dark)")
            let big = try await ConfProfile.query(on: db)
                .where(json(\.settings, "scale", as: Double.self) > 0.8 && \.name != "dee").order(\.id).all()
            try checkEqual(big.map(\.name), ["ann", "bo"], "scale > 0.8 beside a column condition")
        },
        ConformanceCase("json-path.custom-coding-key-nested-key-and-array-index") { db in
            try await seedProfiles(db)
            let large = try await ConfProfile.query(on: db)
                .where(json(\.settings, "font_size", as: Int.self) >= 12).order(\.id).all()
            try checkEqual(large.map(\.name), ["ann", "bo", "cy", "dee"], "the stored key font_size, >= 12")
            let first = try await ConfProfile.query(on: db)
                .where(json(\.settings, "recent", 0, as: String.self) == "b").all()
            try checkEqual(first.map(\.name), ["cy"], "recent[0] == b")
            let owned = try await ConfProfile.query(on: db)
                .where(json(\.settings, "owner", "name", as: String.self) == "amy").all()
            try checkEqual(owned.map(\.name), ["bo"], "owner.name == amy")
            let exact = try await ConfProfile.query(on: db)
                .where(json(\.settings, "owner", "level", as: Int.self) == 9_007_199_254_740_993).all()
            try checkEqual(exact.map(\.name), ["émile"], "an integer past 2^53 compares exactly")
            let near = try await ConfProfile.query(on: db)
                .where(json(\.settings, "owner", "level", as: Int.self) == 9_007_199_254_740_992).count()
            try checkEqual(near, 0, "its neighbour below does not match")
        },
        ConformanceCase("json-path.missing-key-and-index-past-the-end-are-null") { db in
            try await seedProfiles(db)
            let noOwner = try await ConfProfile.query(on: db)
                .where(json(\.settings, "owner", "name", as: String.self) == nil).all()
            try checkEqual(noOwner.map(\.name), ["cy"], "a nil owner is not stored: owner.name is NULL")
            let short = try await ConfProfile.query(on: db)
                .where(json(\.settings, "recent", 1, as: String.self) == nil).order(\.id).all()
            try checkEqual(short.map(\.name), ["bo", "dee", "émile"], "recent[1] past the end is NULL")
            let none = try await ConfProfile.query(on: db)
                .where(json(\.settings, "nothing", as: Int.self) != nil).count()
            try checkEqual(none, 0, "a key no document has")
            let unknown = try await ConfProfile.query(on: db)
                .where(!(json(\.settings, "nothing", as: Int.self) == 1)).count()
            try checkEqual(unknown, 0, "NOT (NULL = 1) is unknown: no row")
        },
        ConformanceCase("json-path.step-into-a-scalar-or-the-wrong-container-is-null") { db in
            try await seedProfiles(db)
            let intoText = try await ConfProfile.query(on: db)
                .where(json(\.settings, "theme", "x", as: String.self) == nil).count()
            try checkEqual(intoText, 5, "a key step into a string")
            let keyIntoArray = try await ConfProfile.query(on: db)
                .where(json(\.settings, "recent", "x", as: String.self) == nil).count()
            try checkEqual(keyIntoArray, 5, "a key step into an array")
            let indexIntoObject = try await ConfProfile.query(on: db)
                .where(json(\.settings, "owner", 0, as: String.self) == nil).count()
            try checkEqual(indexIntoObject, 5, "an index step into an object")
        },
        ConformanceCase("json-path.another-json-type-reads-as-null") { db in
            try await seedDocuments(
                db,
                [
                    #"{"v":"5"}"#, #"{"v":5}"#, #"{"v":5.5}"#, #"{"v":true}"#, #"{"v":null}"#, #"{"v":[5]}"#,
                    #"{"v":{"x":5}}"#, #"{"w":5}"#, nil, #""5""#, "[5]",
                ])
            let rows = try await ConfProfile.query(on: db).order(\.id).select(
                .json(\.doc, "v", as: String.self), .json(\.doc, "v", as: Int.self), .json(\.doc, "v", as: Double.self),
                .json(\.doc, "v", as: Bool.self), .json(\.doc, 0, as: Int.self))
            let empty: [Int?] = Array(repeating: nil, count: 6)
            try checkEqual(rows.map(\.0), ["5"] + Array(repeating: nil, count: 10), "as String: the string only")
            try checkEqual(rows.map(\.1), [nil, 5, nil, nil, nil] + empty, "as Int: the integer only")
            try checkEqual(
                rows.map(\.2), [nil, 5, 5.5, nil, nil] + Array(repeating: nil, count: 6), "as Double: both numbers")
            try checkEqual(
                rows.map(\.3), [nil, nil, nil, true] + Array(repeating: nil, count: 7), "as Bool: true only")
            try checkEqual(
                rows.map(\.4), Array(repeating: nil, count: 10) + [5], "[0]: only the top-level array has one")
        },
        ConformanceCase("json-path.index-into-a-scalar-document-is-null") { db in
            // Found by the differential engine (seed 20261123): jsonb reads `-> 0` of a scalar as the scalar.
            try await seedDocuments(db, ["true", #""é""#, "7", "[true]", #"["é"]"#, "[7]"])
            let rows = try await ConfProfile.query(on: db).order(\.id).select(
                .json(\.doc, 0, as: Bool.self), .json(\.doc, 0, as: String.self), .json(\.doc, 0, as: Int.self))
            try checkEqual(rows.map(\.0), [nil, nil, nil, true, nil, nil], "as Bool: the array's element only")
            try checkEqual(rows.map(\.1), [nil, nil, nil, nil, "é", nil], "as String: the array's element only")
            try checkEqual(rows.map(\.2), [nil, nil, nil, nil, nil, 7], "as Int: the array's element only")
            let notFalse = try await ConfProfile.query(on: db)
                .where(json(\.doc, 0, as: Bool.self) >= false).all().map(\.name)
            try checkEqual(notFalse, ["d4"], "a filter on [0] matches the array only")
        },
        ConformanceCase("json-path.numbers-compare-as-the-declared-type") { db in
            try await seedDocuments(
                db,
                [
                    #"{"v":1}"#, #"{"v":1.0}"#, #"{"v":9007199254740993}"#, #"{"v":9223372036854775807}"#,
                    #"{"v":92233720368547758070}"#, #"{"v":-0}"#,
                ])
            let rows = try await ConfProfile.query(on: db).order(\.id).select(
                .json(\.doc, "v", as: Int64.self), .json(\.doc, "v", as: Double.self))
            try checkEqual(
                rows.map(\.0), [1, nil, 9_007_199_254_740_993, Int64.max, nil, 0],
                "as Int64: integers written without a fraction, within Int64, exactly")
            try checkEqual(
                rows.map(\.1),
                [1, 1, 9_007_199_254_740_992, 9.223_372_036_854_775_807e18, 9.223_372_036_854_775_807e19, 0],
                "as Double: every number, 1 and 1.0 alike, nearest double")
            let ones = try await ConfProfile.query(on: db)
                .where(json(\.doc, "v", as: Double.self) == 1).order(\.id).all()
            try checkEqual(ones.map(\.name), ["d1", "d2"], "1 and 1.0 are the same Double")
            let oneInt = try await ConfProfile.query(on: db).where(json(\.doc, "v", as: Int.self) == 1).all()
            try checkEqual(oneInt.map(\.name), ["d1"], "as Int only 1 is 1")
        },
        ConformanceCase("json-path.order-puts-nulls-first-ascending-last-descending") { db in
            try await seedProfiles(db)
            let up = try await ConfProfile.query(on: db)
                .order(json(\.settings, "owner", "name", as: String.self)).order(\.id).all()
            // Owner names: zed, amy, (none), Bob, émile; by code point Bob < amy < zed < émile.
            try checkEqual(up.map(\.name), ["cy", "dee", "bo", "ann", "émile"], "NULL first, then by code point")
            let down = try await ConfProfile.query(on: db)
                .order(json(\.settings, "owner", "name", as: String.self), .descending).order(\.id).all()
            try checkEqual(down.map(\.name), ["émile", "ann", "bo", "dee", "cy"], "descending, NULL last")
            let sizes = try await ConfProfile.query(on: db)
                .order(json(\.settings, "font_size", as: Int.self), .descending).order(\.id).limit(3).all()
            try checkEqual(sizes.map(\.name), ["cy", "ann", "bo"], "numbers order as numbers, ties by id, limited")
        },
        ConformanceCase("json-path.text-orders-by-code-point-and-bools-false-first") { db in
            try await seedProfiles(db)
            let themes = try await ConfProfile.query(on: db)
                .order(json(\.settings, "theme", as: String.self)).order(\.id).all()
            try checkEqual(themes.map(\.name), ["émile", "ann", "cy", "bo", "dee"], "Dark < dark < light < solarized")
            let beta = try await ConfProfile.query(on: db)
                .where(json(\.settings, "beta", as: Bool.self) == true).order(\.id).all()
            try checkEqual(beta.map(\.name), ["ann", "dee"], "beta == true")
            let byBeta = try await ConfProfile.query(on: db)
                .order(json(\.settings, "beta", as: Bool.self)).order(\.id).all()
            try checkEqual(byBeta.map(\.name), ["bo", "cy", "émile", "ann", "dee"], "false before true")
        },
        ConformanceCase("json-path.select-into-typed-tuples-and-decodable-rows") { db in
            struct Row: Decodable, Equatable {
                let name: String
                let theme: String?
                let level: Int?
            }
            try await seedProfiles(db)
            let rows = try await ConfProfile.query(on: db).where(\.id <= 3).order(\.id).select(
                .column(\.name), .json(\.settings, "theme", as: String.self),
                .json(\.settings, "font_size", as: Int.self),
                .json(\.settings, "scale", as: Double.self), .json(\.settings, "beta", as: Bool.self))
            try checkEqual(rows.map(\.0), ["ann", "bo", "cy"], "names")
            try checkEqual(rows.map(\.1), ["dark", "light", "dark"], "themes as String?")
            try checkEqual(rows.map(\.2), [14, 12, 16], "font sizes as Int?")
            try checkEqual(rows.map(\.3), [1, 1.5, 0.75], "scales as Double?")
            try checkEqual(rows.map(\.4), [true, false, false], "beta as Bool?")
            let decoded = try await ConfProfile.query(on: db).where(\.id >= 3).order(\.id).select(
                as: Row.self, .column(\.name), .json(\.settings, "theme", as: String.self).as("theme"),
                .json(\.settings, "owner", "level", as: Int.self).as("level"))
            try checkEqual(
                decoded,
                [
                    Row(name: "cy", theme: "dark", level: nil), Row(name: "dee", theme: "solarized", level: 2),
                    Row(name: "émile", theme: "Dark", level: 9_007_199_254_740_993),
                ], "decodable rows under the items' keys")
        },
        ConformanceCase("json-path.keys-are-quoted-not-pasted") { db in
            try await seedDocuments(
                db, [#"{"a.b c":1,"it's":2,"x":{"é":3}}"#, #"{"a":{"b c":4}}"#, #"{"x') OR 1=1 --":5}"#])
            let dotted = try await ConfProfile.query(on: db).where(json(\.doc, "a.b c", as: Int.self) == 1).all()
            try checkEqual(dotted.map(\.name), ["d1"], "a key holding a dot and a space is one key")
            let quoted = try await ConfProfile.query(on: db).where(json(\.doc, "it's", as: Int.self) == 2).all()
            try checkEqual(quoted.map(\.name), ["d1"], "a key holding a single quote")
            let accented = try await ConfProfile.query(on: db).where(json(\.doc, "x", "é", as: Int.self) == 3).all()
            try checkEqual(accented.map(\.name), ["d1"], "a non-ASCII key")
            let injected = try await ConfProfile.query(on: db)
                .where(json(\.doc, "x') OR 1=1 --", as: Int.self) == 5).all()
            try checkEqual(injected.map(\.name), ["d3"], "SQL in a key is a key")
        },
        ConformanceCase("json-path.bad-path-is-a-typed-error-naming-the-part") { db in
            try await seedProfiles(db)
            try await checkThrows(
                "a path into a text column",
                {
                    if case .invalidQuery(let m) = $0 {
                        m.contains("ConfProfile.name") && m.contains("text")
                    } else {
                        false
                    }
                }
            ) { try await ConfProfile.query(on: db).where(json(\.name, "x", as: String.self) == "a").all() }
            try await checkThrows(
                "a path with no step",
                { if case .invalidQuery(let m) = $0 { m.contains("ConfProfile.settings") } else { false } }
            ) { try await ConfProfile.query(on: db).where(json(\.settings, path: [], as: Int.self) == 1).all() }
            try await checkThrows(
                "a negative index",
                { if case .invalidQuery(let m) = $0 { m.contains("index -1") && m.contains("recent") } else { false } }
            ) {
                try await ConfProfile.query(on: db).where(json(\.settings, "recent", -1, as: String.self) == "a").all()
            }
            try await checkThrows(
                "a key holding a double quote",
                { if case .invalidQuery(let m) = $0 { m.contains("double quote") } else { false } }
            ) { try await ConfProfile.query(on: db).order(json(\.settings, "a\"b", as: String.self)).all() }
            try await checkThrows(
                "a path item in a grouped select",
                { if case .invalidAggregate(_, let c, _) = $0 { c == "settings.theme" } else { false } }
            ) {
                try await ConfProfile.query(on: db).group(by: \.name).select(
                    .column(\.name), .json(\.settings, "theme", as: String.self))
            }
        },
        ConformanceCase("json-path.filters-updates-and-deletes") { db in
            try await seedProfiles(db)
            let changed = try await ConfProfile.query(on: db)
                .where(json(\.settings, "beta", as: Bool.self) == true).update(set: \.name, to: upper(\.name))
            try checkEqual(changed, 2, "two beta profiles renamed")
            let gone = try await ConfProfile.query(on: db)
                .where(json(\.settings, "owner", "level", as: Int.self) < 2).delete()
            try checkEqual(gone, 1, "bo (level 1) deleted; cy has no owner (NULL), so stays")
            let left = try await ConfProfile.query(on: db).order(\.id).all()
            try checkEqual(left.map(\.name), ["ANN", "cy", "DEE", "émile"], "what is left")
        },
    ]
}
