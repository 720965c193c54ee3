import Foundation
import GRDB

/// SQLite files as other programs (or other versions of Shoebox) leave them, for the catalog guard tests.
public enum SQLiteFiles {
    /// A database of another application: one table of its own, the given `application_id`, a rollback
    /// journal (as most tools make them).
    public static func foreign(_ path: String, applicationID: Int32) throws {
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE notes(id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes(body) VALUES ('hello')")
            try db.execute(sql: "PRAGMA application_id = \(applicationID)")
        }
        try queue.close()
    }

    /// Another GRDB application's database that happens to have a `meta` table too (application_id 0).
    public static func otherGRDBApplication(_ path: String) throws {
        let queue = try DatabaseQueue(path: path)
        var migrator = DatabaseMigrator()
        migrator.registerMigration("createSettings") { db in
            try db.execute(sql: "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT)")
        }
        try migrator.migrate(queue)
        try queue.close()
    }

    /// Sets `user_version` (and `application_id`) of an existing file, as another Shoebox would have.
    public static func setHeader(_ path: String, applicationID: Int32? = nil, userVersion: Int32) throws {
        try setHeaderInWAL(path, applicationID: applicationID, userVersion: userVersion).close()
    }

    /// `setHeader` on a WAL-mode file with checkpoints off, returning the open connection: until it is
    /// closed, the new header is only in the `-wal` (as a killed writer leaves it), not in the file.
    public static func setHeaderInWAL(_ path: String, applicationID: Int32? = nil, userVersion: Int32) throws -> DatabaseQueue {
        let queue = try DatabaseQueue(path: path)
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA wal_autocheckpoint = 0")
            if let applicationID { try db.execute(sql: "PRAGMA application_id = \(applicationID)") }
            try db.execute(sql: "PRAGMA user_version = \(userVersion)")
        }
        return queue
    }
}
