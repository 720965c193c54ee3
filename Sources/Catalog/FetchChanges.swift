import Foundation
import GRDB

/// A move in `FetchChangeDetails`: `from` is an index in the old list after the removals and insertions
/// were applied, `to` an index in the new list (PhotoKit's `enumerateMoves`).
public struct FetchMove: Sendable, Equatable, Codable {
    public var from: Int
    public var to: Int
    public init(from: Int, to: Int) {
        self.from = from
        self.to = to
    }
}

/// `PHFetchResultChangeDetails` for a saved fetch: what changed between the saved list and the same
/// fetch re-run now.
public struct FetchChangeDetails: Sendable, Equatable {
    /// Row ids of the saved (old) and current (new) lists.
    public var before: [Int64]
    public var after: [Int64]
    /// Indexes in `before` of assets no longer in the result.
    public var removedIndexes: [Int]
    /// Indexes in `after` of assets new to the result.
    public var insertedIndexes: [Int]
    /// Indexes in `after` of assets in both lists whose properties changed since the save.
    public var changedIndexes: [Int]
    public var moves: [FetchMove]

    public var hasIncrementalChanges: Bool { true }
    public var isEmpty: Bool { removedIndexes.isEmpty && insertedIndexes.isEmpty && changedIndexes.isEmpty && moves.isEmpty }

    /// Computes the details from the two lists and the ids whose properties changed. Moves: the old list
    /// with the removals and insertions applied is compared with the new list; the assets outside a
    /// longest run kept in order are the ones that moved.
    public static func compute(before: [Int64], after: [Int64], changed: Set<Int64>) -> FetchChangeDetails {
        let inAfter = Set(after), inBefore = Set(before)
        let removed = before.indices.filter { !inAfter.contains(before[$0]) }
        let inserted = after.indices.filter { !inBefore.contains(after[$0]) }
        let changedIdx = after.indices.filter { inBefore.contains(after[$0]) && changed.contains(after[$0]) }
        var mid = before.filter { inAfter.contains($0) }
        for i in inserted { mid.insert(after[i], at: min(i, mid.count)) }
        var newIndex: [Int64: Int] = [:]
        for (k, id) in after.enumerated() { newIndex[id] = k }
        // Longest increasing subsequence of the new positions, over the assets present in both.
        let common = mid.indices.filter { inBefore.contains(mid[$0]) }
        let keys = common.map { newIndex[mid[$0]]! }
        var tails: [Int] = []  // index into keys
        var prev = Array(repeating: -1, count: keys.count)
        for (k, v) in keys.enumerated() {
            var lo = 0, hi = tails.count
            while lo < hi {
                let m = (lo + hi) / 2
                if keys[tails[m]] < v { lo = m + 1 } else { hi = m }
            }
            if lo > 0 { prev[k] = tails[lo - 1] }
            if lo == tails.count { tails.append(k) } else { tails[lo] = k }
        }
        var stay = Set<Int>()
        var k = tails.last ?? -1
        while k >= 0 {
            stay.insert(k)
            k = prev[k]
        }
        var moves: [FetchMove] = []
        for (n, m) in common.enumerated() where !stay.contains(n) { moves.append(FetchMove(from: m, to: keys[n])) }
        moves.sort { $0.to < $1.to }
        return FetchChangeDetails(
            before: before, after: after, removedIndexes: removed, insertedIndexes: inserted, changedIndexes: changedIdx, moves: moves)
    }
}

/// The answer of `Catalog.changeDetails(forSavedFetch:)`.
public enum SavedFetchChanges: Sendable, Equatable {
    case incremental(FetchChangeDetails)
    /// Too large a change (or history compacted): refetch.
    case notIncremental(reason: String)
}

/// Fetch options as stored with a saved fetch (JSON in the transient collection's `predicate`).
struct StoredFetchOptions: Codable {
    struct Value: Codable {
        var t: String
        var i: Int64?
        var d: Double?
        var s: String?
    }
    struct Sort: Codable {
        var key: String
        var ascending: Bool
    }
    var predicateSQL: String?
    var arguments: [Value]
    var sort: [Sort]
    var limit: Int?
    var includeHidden: Bool
    var includeAllBursts: Bool
    var includeTrashed: Bool

    init(_ o: FetchOptions) {
        predicateSQL = o.predicateSQL
        arguments = o.predicateArguments.map {
            switch $0 {
            case .null: return Value(t: "null")
            case .int(let v): return Value(t: "int", i: v)
            case .double(let v): return Value(t: "double", d: v)
            case .text(let v): return Value(t: "text", s: v)
            }
        }
        sort = o.sortDescriptors.map { Sort(key: $0.key, ascending: $0.ascending) }
        limit = o.fetchLimit
        includeHidden = o.includeHiddenAssets
        includeAllBursts = o.includeAllBurstAssets
        includeTrashed = o.includeTrashed
    }

    var options: FetchOptions {
        var o = FetchOptions()
        o.predicateSQL = predicateSQL
        o.predicateArguments = arguments.map {
            switch $0.t {
            case "int": return .int($0.i ?? 0)
            case "double": return .double($0.d ?? 0)
            case "text": return .text($0.s ?? "")
            default: return .null
            }
        }
        o.sortDescriptors = sort.map { SortDescriptor(key: $0.key, ascending: $0.ascending) }
        o.fetchLimit = limit
        o.includeHiddenAssets = includeHidden
        o.includeAllBurstAssets = includeAllBursts
        o.includeTrashed = includeTrashed
        return o
    }
}

extension Catalog {
    /// Saves a fetch (`shoebox query --save NAME`) with its options and the current change token, so
    /// `changeDetails(forSavedFetch:)` can re-run it and report what changed.
    public func saveFetch(named name: String, rowIDs: [Int64], options: FetchOptions) throws(CatalogError) {
        let json: String
        do {
            json = String(decoding: try JSONEncoder().encode(StoredFetchOptions(options)), as: UTF8.self)
        } catch {
            throw CatalogError(.sql, "cannot encode the fetch options: \(error)")
        }
        let token = try currentToken()
        try saveFetch(named: name, rowIDs: rowIDs)
        try write { db in
            try db.execute(
                sql: "UPDATE collection SET predicate = ?, saved_token = ? WHERE transient = 1 AND title = ?", arguments: [json, token, name])
        }
    }

    /// Re-runs a saved fetch and replaces its list and token with the current result (`--update`).
    @discardableResult
    public func updateSavedFetch(named name: String) throws(CatalogError) -> FetchResult {
        let options = try savedFetchOptions(named: name).options
        let result = try fetchAssets(options)
        try saveFetch(named: name, rowIDs: result.rowIDs, options: options)
        return result
    }

    func savedFetchOptions(named name: String) throws(CatalogError) -> (options: FetchOptions, token: String) {
        let row = try read { db in
            try Row.fetchOne(db, sql: "SELECT predicate, saved_token FROM collection WHERE transient = 1 AND title = ?", arguments: [name])
        }
        guard let row else { throw CatalogError(.notFound, "no saved fetch named '\(name)'") }
        guard let json = row["predicate"] as String?, let token = row["saved_token"] as String?,
            let stored = try? JSONDecoder().decode(StoredFetchOptions.self, from: Data(json.utf8))
        else {
            throw CatalogError(.notFound, "saved fetch '\(name)' was saved without its query; save it again to get change details")
        }
        return (stored.options, token)
    }

    /// `PHFetchResultChangeDetails` between a saved fetch and the same fetch re-run now. A change larger
    /// than `threshold` of the list, or history compacted since the save, gives `.notIncremental`.
    public func changeDetails(forSavedFetch name: String, threshold: Double = 0.5) throws(CatalogError) -> SavedFetchChanges {
        let (options, token) = try savedFetchOptions(named: name)
        guard let before = try savedFetch(named: name) else { throw CatalogError(.notFound, "no saved fetch named '\(name)'") }
        let after = try fetchAssets(options).rowIDs
        let records: [ChangeRecord]
        do {
            records = try changes(since: token, objectType: "asset")
        } catch {
            if error.code == .tokenExpired || error.code == .tokenUnavailable {
                return .notIncremental(reason: "history since the save is no longer available (\(error.message))")
            }
            throw error
        }
        let lids = Set(records.map(\.localIdentifier))
        let changedIDs: Set<Int64> = try read { db in
            var out = Set<Int64>()
            for lid in lids {
                if let id = try Int64.fetchOne(db, sql: "SELECT id FROM asset WHERE local_identifier = ?", arguments: [lid]) { out.insert(id) }
            }
            return out
        }
        let d = FetchChangeDetails.compute(before: before, after: after, changed: changedIDs)
        let size = d.removedIndexes.count + d.insertedIndexes.count + d.changedIndexes.count + d.moves.count
        if Double(size) > threshold * Double(max(before.count, after.count, 1)) {
            return .notIncremental(reason: "\(size) changes in a list of \(max(before.count, after.count))")
        }
        return .incremental(d)
    }

    /// Local identifiers of row ids (assets purged since have none).
    public func localIdentifiers(rowIDs: [Int64]) throws(CatalogError) -> [Int64: String] {
        try read { db in
            var out: [Int64: String] = [:]
            for id in Set(rowIDs) {
                if let l = try String.fetchOne(db, sql: "SELECT local_identifier FROM asset WHERE id = ?", arguments: [id]) { out[id] = l }
            }
            return out
        }
    }
}
