import GRDB
import GRDBSQLite

/// Runs one of the connection's cached statements with its values bound straight into SQLite: the hot
/// writes of an ingest (a file row, its facts, an asset, its resources, a history row) without
/// `StatementArguments` (an array of existential values, each cast back to a `DatabaseValue`).
///
///     var b = try Binder(db, "INSERT INTO t(a, b) VALUES (?, ?)")
///     b.text(name); b.int(size)
///     try b.run()
///
/// Values are bound in placeholder order; text and blobs are copied by SQLite (`SQLITE_TRANSIENT`), so
/// nothing needs to outlive the call. `run()` steps the statement to its end and resets it (bindings are
/// cleared when the next `Binder` takes the statement).
struct Binder {
    private let statement: SQLiteStatement
    private let connection: SQLiteConnection?
    private var index: Int32 = 0

    init(_ db: Database, _ sql: String) throws {
        try self.init(db.cachedStatement(sql: sql), db)
    }

    /// A statement looked up before (`CommitStatements`), on `db`'s connection.
    init(_ cached: Statement, _ db: Database) {
        statement = cached.sqliteStatement
        connection = db.sqliteConnection
        sqlite3_reset(statement)
        sqlite3_clear_bindings(statement)
    }

    /// Ready for the next row's values: the statement reset, its bindings cleared (a loop binds one
    /// statement row after row without looking it up again).
    mutating func restart() {
        sqlite3_reset(statement)
        sqlite3_clear_bindings(statement)
        index = 0
    }

    /// SQLite copies the bytes before the bind call returns.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    mutating func int(_ v: Int64?) {
        index += 1
        if let v { sqlite3_bind_int64(statement, index, v) } else { sqlite3_bind_null(statement, index) }
    }

    mutating func int(_ v: Int?) { int(v.map(Int64.init)) }

    mutating func double(_ v: Double?) {
        index += 1
        if let v { sqlite3_bind_double(statement, index, v) } else { sqlite3_bind_null(statement, index) }
    }

    /// Text up to its first NUL, as GRDB binds a `String` (so a value written here compares equal to the same
    /// value read back or written through GRDB).
    mutating func text(_ v: String?) {
        index += 1
        guard let v else {
            sqlite3_bind_null(statement, index)
            return
        }
        let i = index, s = statement
        v.withCString { _ = sqlite3_bind_text(s, i, $0, -1, Self.transient) }
    }

    mutating func blob(_ v: [UInt8]?) {
        index += 1
        guard let v else {
            sqlite3_bind_null(statement, index)
            return
        }
        let i = index, s = statement
        // An empty blob is bound as a zero-length blob, not NULL (SQLite takes a null pointer for NULL).
        v.withUnsafeBytes { p in
            if p.isEmpty { _ = sqlite3_bind_zeroblob(s, i, 0) } else { _ = sqlite3_bind_blob(s, i, p.baseAddress, Int32(p.count), Self.transient) }
        }
    }

    mutating func value(_ v: DatabaseValue) {
        switch v.storage {
        case .null: int(nil as Int64?)
        case .int64(let n): int(n)
        case .double(let d): double(d)
        case .string(let s): text(s)
        case .blob(let d): blob([UInt8](d))
        }
    }

    /// The first column of the first row as an integer (nil when there is no row), then resets the statement:
    /// for `SELECT EXISTS (…)` and counts, without GRDB's row machinery (which indexes the column names of
    /// every statement it reads).
    func firstInt() throws -> Int64? {
        let code = sqlite3_step(statement)
        defer { sqlite3_reset(statement) }
        switch code {
        case SQLITE_ROW: return sqlite3_column_type(statement, 0) == SQLITE_NULL ? nil : sqlite3_column_int64(statement, 0)
        case SQLITE_DONE: return nil
        default: throw failure(code)
        }
    }

    /// `read` of the first row's columns (nil when there is no row), then resets the statement.
    func firstRow<R>(_ read: (SQLiteStatement) -> R) throws -> R? {
        let code = sqlite3_step(statement)
        defer { sqlite3_reset(statement) }
        switch code {
        case SQLITE_ROW: return read(statement)
        case SQLITE_DONE: return nil
        default: throw failure(code)
        }
    }

    /// The first column of every row as integers (NULL as 0), then resets the statement: a list of row
    /// ids (an album's members) without a GRDB cursor (~5,000 instructions a row through `Int64.fetchAll`).
    func allInts() throws -> [Int64] {
        var out: [Int64] = []
        defer { sqlite3_reset(statement) }
        while true {
            let code = sqlite3_step(statement)
            switch code {
            case SQLITE_ROW: out.append(sqlite3_column_int64(statement, 0))
            case SQLITE_DONE: return out
            default: throw failure(code)
            }
        }
    }

    /// Steps the statement to its end (an insert or update has no rows), then resets it.
    func run() throws {
        var code = sqlite3_step(statement)
        while code == SQLITE_ROW { code = sqlite3_step(statement) }
        defer { sqlite3_reset(statement) }
        guard code == SQLITE_DONE else { throw failure(code) }
    }

    /// `run()`, but false (nothing written: SQLite checks a single-row INSERT's constraints before it writes)
    /// when a UNIQUE or PRIMARY KEY constraint stopped it; any other failure throws.
    func runUnlessUniqueConflict() throws -> Bool {
        var code = sqlite3_step(statement)
        while code == SQLITE_ROW { code = sqlite3_step(statement) }
        defer { sqlite3_reset(statement) }
        if code == SQLITE_DONE { return true }
        let extended = ResultCode(rawValue: connection.map { sqlite3_extended_errcode($0) } ?? code)
        if extended == .SQLITE_CONSTRAINT_UNIQUE || extended == .SQLITE_CONSTRAINT_PRIMARYKEY { return false }
        throw failure(code)
    }

    /// The error of a step that returned `code`, with SQLite's message (read before the statement is reset).
    private func failure(_ code: Int32) -> DatabaseError {
        let message = connection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
        return DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: sqlite3_sql(statement).map { String(cString: $0) })
    }
}

/// The statements a folder commit runs for every file, asset and change, each looked up once per transaction:
/// GRDB's statement cache hashes the SQL text at every lookup (~1,600 instructions for the longer ones; 21k
/// lookups in a 3,000-file first ingest, on the writer's thread).
final class CommitStatements {
    enum Kind: Int, CaseIterable {
        case insertFile, upsertFile, insertFacts, insertError, insertAsset, insertResource, insertChange, updateAsset, updateAssetModified

        var sql: String {
            switch self {
            case .insertFile: Catalog.insertFileSQL
            case .upsertFile: Catalog.upsertFileSQL
            case .insertFacts: "INSERT OR REPLACE INTO file_facts(path, facts) VALUES (?, ?)"
            case .insertError: "INSERT INTO error(run_id, path, stage, reason, at, severity) VALUES (?, ?, ?, ?, ?, ?)"
            case .insertAsset: Catalog.insertAssetSQL
            case .insertResource: Catalog.insertResourceSQL
            case .insertChange: Catalog.insertChangeSQL
            case .updateAsset: Catalog.updateAssetSQL
            case .updateAssetModified: Catalog.updateAssetModifiedSQL
            }
        }
    }

    private let db: Database
    private var statements = [Statement?](repeating: nil, count: Kind.allCases.count)

    /// For the transaction `db` is in (statements must not outlive their connection's use).
    init(_ db: Database) { self.db = db }

    func binder(_ kind: Kind) throws -> Binder {
        if let s = statements[kind.rawValue] { return Binder(s, db) }
        let s = try db.cachedStatement(sql: kind.sql)
        statements[kind.rawValue] = s
        return Binder(s, db)
    }
}
