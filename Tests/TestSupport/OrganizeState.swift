import Foundation
import GRDB

/// What the organize stage decided in a catalog (tests of incremental organize compare two).
public enum OrganizeState {
    /// What organize decides, in a form two catalogs of the same state compare on: every non-transient
    /// collection with its members, every list, each live asset's organize columns, what the albums,
    /// folders and moments were made from, and the history records after `token` (token order aside).
    public static func read(_ path: String, after token: Int64) throws -> [String: [String]] {
        var config = Configuration()
        config.readonly = true
        let q = try DatabaseQueue(path: path, configuration: config)
        defer { try? q.close() }
        return try q.read { db in
            var out: [String: [String]] = [:]
            out["collections"] = try String.fetchAll(
                db,
                sql: """
                    SELECT c.local_identifier || '|' || c.type || '|' || c.subtype || '|' || ifnull(c.title, '') || '|' || ifnull(c.start_date, '')
                        || '|' || ifnull(c.end_date, '') || '|' || ifnull(c.latitude, '') || '|' || ifnull(c.longitude, '') || '|'
                        || ifnull(c.predicate, '') || '|' || ifnull((SELECT group_concat(a.local_identifier, ',') FROM
                            (SELECT a.local_identifier FROM collection_membership m JOIN asset a ON a.id = m.asset_id
                             WHERE m.collection_id = c.id ORDER BY m.position) a), '')
                    FROM collection c WHERE c.transient = 0 ORDER BY c.local_identifier
                    """)
            out["lists"] = try String.fetchAll(
                db,
                sql: """
                    SELECT local_identifier || '|' || type || '|' || subtype || '|' || ifnull(title, '') || '|' || ifnull(start_date, '') || '|'
                        || ifnull(end_date, '') || '|' || children FROM collection_list ORDER BY local_identifier
                    """)
            out["assets"] = try String.fetchAll(
                db,
                sql: """
                    SELECT local_identifier || '|' || ifnull(burst_identifier, '') || '|' || represents_burst || '|' || burst_selection_types
                        || '|' || ifnull(place_id, '') || '|' || ifnull(place_name, '') || '|' || ifnull(place_reason, '') || '|'
                        || ifnull(local_date, '') || '|' || ifnull(local_offset, '') || '|' || ifnull(time_zone, '') || '|'
                        || ifnull(zone_reason, '') || '|' || ifnull(zone_confidence, '') || '|' || places_derived
                    FROM asset WHERE trashed_at IS NULL ORDER BY local_identifier
                    """)
            // What the next incremental organize builds albums and folders from.
            out["folderRecord"] = try String.fetchAll(
                db,
                sql: """
                    SELECT is_folder || '|' || local_identifier || '|' || root || '|' || top || '|' || directory FROM organize_folder
                    UNION ALL SELECT 'digest|' || value FROM meta WHERE key = 'organize_folders' ORDER BY 1
                    """)
            // What the next incremental organize segments moments and makes their lists from.
            out["momentRecord"] = try String.fetchAll(
                db,
                sql: """
                    SELECT local_identifier || '|' || start_instant || '|' || end_instant || '|' || start_local_date || '|' || end_local_date
                        || '|' || ifnull(latitude, '') || '|' || ifnull(longitude, '') || '|' || places FROM organize_moment
                    UNION ALL SELECT 'item|' || a.local_identifier || '|' || i.instant || '|' || ifnull(i.place, '')
                        FROM organize_moment_item i JOIN asset a ON a.id = i.asset_id
                    UNION ALL SELECT 'place|' || place || '|' || items FROM organize_place
                    UNION ALL SELECT 'home|' || value FROM meta WHERE key = 'organize_moments' ORDER BY 1
                    """)
            out["history"] = try String.fetchAll(
                db,
                sql: """
                    SELECT object_type || '|' || local_identifier || '|' || change_type || '|' || properties FROM change
                    WHERE token > ? ORDER BY 1
                    """, arguments: [token])
            return out
        }
    }
}
