// SQLiteInspectTests: `strata inspect` on a file sqlite3 wrote prints models that compile (below) and read every row.
import Foundation
import Strata
import StrataSQLite
import Testing

// The models below are the inspector's output for `InspectFixture.sql`, pasted as printed: the test checks the
// output is still exactly this text, and that these models read every row.

/// A JSON column's value as its text: `strata inspect`'s placeholder, to replace with a Codable type.
struct JSONText: Hashable, Sendable, DatabaseValueConvertible {
    var text: String
    init(_ text: String) { self.text = text }
    static var columnType: ColumnType { .json }
    var databaseValue: DatabaseValue { .json(text) }
    init(databaseValue: DatabaseValue) throws(ValueConversionError) {
        switch databaseValue {
        case .json(let s), .text(let s): text = s
        case .integer(let i): text = String(i)
        case .double(let d): text = "\(d)"
        default: throw ValueConversionError(databaseValue, expected: JSONText.self)
        }
    }
}

/// A value of any kind, as stored: `strata inspect`'s placeholder for a column of an unknown type.
struct StoredValue: Hashable, Sendable, DatabaseValueConvertible {
    var value: DatabaseValue
    init(_ value: DatabaseValue) { self.value = value }
    static var columnType: ColumnType { .text }
    var databaseValue: DatabaseValue { value }
    init(databaseValue: DatabaseValue) { value = databaseValue }
}

@Model(table: "album")
struct Album {
    @Column("AlbumId") var id: Int64?
    @Column("Title") var title: String
    @Column("ArtistId") var artistId: Int64
    static let artist = belongsTo(Artist.self, key: \Album.artistId)
}

@Model(table: "artist")
struct Artist {
    @Column("ArtistId") var id: Int64?
    @Column("Name") var name: String?
    static let albums = hasMany(Album.self, key: \Album.artistId)
}

@Model(table: "gadget")
struct Gadget {
    var id: Int64?
    // JSON: kept as its JSON text
    var spec: JSONText
    // TIME: a time of day, read as its text (10:30:00); Strata has no time type
    var opens: String?
    var shape: Data?
    // STRING: values of several kinds, each read as stored
    var code: StoredValue?
    var made: String?
    var weight: Double
    @Column(dateFormat: .unixSeconds) var synced: Date?
    @Column(dateFormat: .julianDay) var logged: Date?
    @Column(dateFormat: .iso8601WithFraction) var stamped: Date?
}

@Model(table: "invoice")
struct Invoice {
    var id: Int64?
    @Column("InvoiceDate", dateFormat: .sqlDateTime) var invoiceDate: Date
    @Column("Total") var total: Decimal
    @Column("paid_at", dateFormat: .unixMilliseconds) var paidAt: Date?
    @Column(dateFormat: .iso8601) var sent: Date?
}

@Model(table: "playlist")
struct Playlist {
    var id: Int64?
    var name: String
    static let playlistTracks = hasMany(PlaylistTrack.self, key: \PlaylistTrack.playlistId)
    static let tracks = hasMany(
        Track.self, through: PlaylistTrack.self, ownerKey: \PlaylistTrack.playlistId,
        targetKey: \PlaylistTrack.trackId)
}

@Model(table: "playlist_track")
struct PlaylistTrack {
    var id: Int64?
    @Column("playlist_id") var playlistId: Int64
    @Column("track_id") var trackId: Int64
    static let playlist = belongsTo(Playlist.self, key: \PlaylistTrack.playlistId)
    static let track = belongsTo(Track.self, key: \PlaylistTrack.trackId)
}

@Model(table: "track")
struct Track {
    var id: Int64?
    var name: String
    var milliseconds: Int64
    @Column("unit_price") var unitPrice: Decimal
    static let playlistTracks = hasMany(PlaylistTrack.self, key: \PlaylistTrack.trackId)
    static let playlists = hasMany(
        Playlist.self, through: PlaylistTrack.self, ownerKey: \PlaylistTrack.trackId,
        targetKey: \PlaylistTrack.playlistId)
}

// genre_lookup: no single integer primary key, which a Strata model needs; not mapped.

enum InspectFixture {
    static let sql = """
        CREATE TABLE artist (ArtistId INTEGER PRIMARY KEY, Name NVARCHAR(120));
        CREATE TABLE album (AlbumId INTEGER PRIMARY KEY, Title NVARCHAR(160) NOT NULL,
                            ArtistId INTEGER NOT NULL REFERENCES artist (ArtistId));
        CREATE TABLE invoice (id integer NOT NULL PRIMARY KEY AUTOINCREMENT, "InvoiceDate" datetime NOT NULL,
                              "Total" decimal NOT NULL, paid_at datetime NULL, sent datetime NULL);
        CREATE TABLE playlist (id integer PRIMARY KEY, name varchar(50) NOT NULL);
        CREATE TABLE track (id integer PRIMARY KEY, name varchar(200) NOT NULL, milliseconds integer NOT NULL,
                            unit_price decimal NOT NULL);
        CREATE TABLE playlist_track (id integer PRIMARY KEY, playlist_id integer NOT NULL REFERENCES playlist (id),
                                     track_id integer NOT NULL REFERENCES track (id));
        CREATE TABLE genre_lookup (code TEXT PRIMARY KEY, label TEXT);
        CREATE TABLE gadget (id integer PRIMARY KEY, spec JSON NOT NULL, opens TIME, shape GEOMETRY, code STRING,
                             made TEXT, weight FLOAT8 NOT NULL, synced datetime, logged date, stamped timestamp);
        INSERT INTO artist VALUES (1, 'AC/DC'), (2, NULL);
        INSERT INTO album VALUES (1, 'For Those About To Rock', 1), (2, 'Let There Be Rock', 1), (3, 'Untitled', 2);
        INSERT INTO invoice VALUES (1, '2009-01-01 00:00:00', 1.98, 1230804000250, '2009-01-02T10:00:00Z'),
                                   (2, '2009-01-02 00:00:00', 3.96, NULL, NULL),
                                   (3, '2009-01-03 00:00:00', 0.99, 1230976800000, '2009-01-04T10:00:00+01:00');
        INSERT INTO playlist VALUES (1, 'Music'), (2, 'Empty');
        INSERT INTO track VALUES (1, 'Balls to the Wall', 342562, 0.99), (2, 'Fast As a Shark', 230619, 0.99);
        INSERT INTO playlist_track VALUES (1, 1, 1), (2, 1, 2);
        INSERT INTO genre_lookup VALUES ('rock', 'Rock');
        INSERT INTO gadget VALUES (1, '{"a": [1, 2]}', '10:30:00', X'0102', 'abc', 'x', 1.5, 1230804000,
                                   2454832.75, '2009-01-01T10:00:00.250Z'),
                                  (2, '12', '23:59:59', NULL, '12', NULL, 2, NULL, NULL, '2009-01-02T00:00:00.500+01:00');
        """

    /// This file's model declarations, as the inspector prints them.
    static func expectedSource() throws -> String {
        let file = try String(contentsOfFile: #filePath, encoding: .utf8)
        let start = try #require(file.range(of: "/// A JSON column's value"))
        let end = try #require(file.range(of: "enum InspectFixture"))
        return "import Foundation\nimport Strata\n\n" + String(file[start.lowerBound..<end.lowerBound]).dropLast()
    }
}

@Suite("SQLite inspect")
struct SQLiteInspectTests {
    func sqlite3(_ path: String, _ sql: String) throws -> String {
        let (status, output) = try ToolRun.run("/usr/bin/sqlite3", [path, sql])
        try #require(status == 0)
        return output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("inspect prints these models, which pass the checked mapping and read every row")
    func inspectReadsEveryRow() async throws {
        let file = TemporarySQLiteFile()
        _ = try sqlite3(file.path, InspectFixture.sql)
        let db = try Database.open("sqlite:\(file.path)?migrate=off", drivers: [.sqlite])
        defer { db.close() }
        let source = try await db.withConnection { tx in try ModelSource.inspect(tx) }
        #expect(source == (try InspectFixture.expectedSource()))
        try await db.migrate(
            Album.self, Artist.self, Gadget.self, Invoice.self, Playlist.self, PlaylistTrack.self, Track.self)
        for (table, count) in [
            ("gadget", try await Gadget.query(on: db).all().count),
            ("album", try await Album.query(on: db).all().count),
            ("artist", try await Artist.query(on: db).all().count),
            ("invoice", try await Invoice.query(on: db).all().count),
            ("playlist", try await Playlist.query(on: db).all().count),
            ("playlist_track", try await PlaylistTrack.query(on: db).all().count),
            ("track", try await Track.query(on: db).all().count),
        ] {
            #expect("\(count)" == (try sqlite3(file.path, "SELECT count(*) FROM \(table)")), "\(table)")
        }
        let invoices = try await Invoice.query(on: db).order(\.id).all()
        #expect(invoices[0].paidAt == Date(timeIntervalSince1970: 1_230_804_000.25))
        #expect(invoices[2].sent == DateText.parse("2009-01-04 09:00:00"))
        #expect(invoices.map(\.total) == [Decimal(string: "1.98"), Decimal(string: "3.96"), Decimal(string: "0.99")])
        let gadgets = try await Gadget.query(on: db).order(\.id).all()
        #expect(
            gadgets.map(\.spec.text)
                == (try sqlite3(file.path, "SELECT spec FROM gadget ORDER BY id")).split(separator: "\n").map(
                    String.init))
        #expect(gadgets.map(\.opens) == ["10:30:00", "23:59:59"])
        #expect(gadgets[0].shape == Data([1, 2]))
        #expect(gadgets.map(\.code) == [StoredValue(.text("abc")), StoredValue(.integer(12))])
        #expect(gadgets.map(\.weight) == [1.5, 2])
        let newYear = try #require(DateText.parse("2009-01-01 10:00:00"))
        #expect(gadgets[0].synced == newYear)
        #expect(gadgets[0].logged == DateText.parse("2009-01-01 06:00:00"))
        #expect(
            gadgets.map(\.stamped) == [newYear.addingTimeInterval(0.25), DateText.parse("2009-01-01 23:00:00.500")])
        let music = try await Playlist.query(on: db).including(Playlist.tracks).order(\.id).all()
        #expect(try music[0].loaded(Playlist.tracks).map(\.name).sorted() == ["Balls to the Wall", "Fast As a Shark"])
        #expect(try music[1].loaded(Playlist.tracks).isEmpty)
    }
}
