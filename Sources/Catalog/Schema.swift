import GRDB

/// The catalog's migrations. Each is additive; a catalog opened by a newer Shoebox is migrated in place.
enum Schema {
    static func migrator() -> DatabaseMigrator {
        var m = DatabaseMigrator()
        m.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

                    CREATE TABLE ingest_run (
                        id INTEGER PRIMARY KEY,
                        started_at TEXT NOT NULL,
                        finished_at TEXT,
                        roots TEXT NOT NULL,
                        status TEXT NOT NULL DEFAULT 'running',   -- running | finished | failed
                        files_seen INTEGER NOT NULL DEFAULT 0,
                        files_probed INTEGER NOT NULL DEFAULT 0,
                        errors INTEGER NOT NULL DEFAULT 0,
                        elapsed_seconds REAL
                    );

                    CREATE TABLE asset (
                        id INTEGER PRIMARY KEY,
                        local_identifier TEXT NOT NULL UNIQUE,
                        cloud_identifier TEXT NOT NULL,
                        root TEXT NOT NULL,
                        dir TEXT NOT NULL,                 -- folder of the primary resource (absolute)
                        primary_path TEXT NOT NULL,        -- primary resource, relative to root
                        filename TEXT NOT NULL,
                        media_type INTEGER NOT NULL,
                        media_subtypes INTEGER NOT NULL,
                        traits TEXT NOT NULL,              -- comma-separated, sorted
                        playback_style INTEGER NOT NULL,
                        playback_variation INTEGER NOT NULL,
                        creation_date TEXT,                -- local wall-clock ISO-8601
                        creation_offset INTEGER,           -- seconds east of UTC, when known
                        creation_date_source TEXT,
                        modification_date TEXT NOT NULL,
                        added_date TEXT NOT NULL,
                        latitude REAL, longitude REAL, altitude REAL, location_source TEXT,
                        pixel_width INTEGER NOT NULL, pixel_height INTEGER NOT NULL,
                        duration REAL NOT NULL,
                        content_identifier TEXT,
                        burst_identifier TEXT,
                        represents_burst INTEGER NOT NULL DEFAULT 0,
                        burst_selection_types INTEGER NOT NULL DEFAULT 0,
                        has_adjustments INTEGER NOT NULL,
                        is_favorite INTEGER NOT NULL DEFAULT 0,
                        is_hidden INTEGER NOT NULL DEFAULT 0,
                        trashed_at TEXT,                   -- Recently Deleted
                        pending_vanish INTEGER NOT NULL DEFAULT 0,  -- its files vanished in the running ingest
                        make TEXT, model TEXT, lens_model TEXT,
                        pairing_confidence TEXT,
                        embedded_video_offset INTEGER, embedded_video_length INTEGER,
                        paired_video_duration REAL,
                        metadata_sources TEXT NOT NULL,    -- JSON [{type, path}]
                        reasons TEXT NOT NULL              -- one "subject: evidence" per line
                    );
                    CREATE INDEX asset_dir ON asset(dir);
                    CREATE INDEX asset_cloud ON asset(cloud_identifier);
                    CREATE INDEX asset_creation ON asset(creation_date);
                    CREATE INDEX asset_burst ON asset(burst_identifier);
                    CREATE INDEX asset_type ON asset(media_type, media_subtypes);

                    CREATE TABLE resource (
                        id INTEGER PRIMARY KEY,
                        asset_id INTEGER NOT NULL REFERENCES asset(id) ON DELETE CASCADE,
                        ord INTEGER NOT NULL,
                        type INTEGER NOT NULL,             -- PHAssetResourceType
                        path TEXT NOT NULL,                -- relative to the asset's root
                        original_filename TEXT NOT NULL,
                        uti TEXT,
                        file_size INTEGER,
                        content_hash TEXT,
                        byte_offset INTEGER, byte_length INTEGER
                    );
                    CREATE INDEX resource_asset ON resource(asset_id);
                    CREATE INDEX resource_hash ON resource(content_hash);

                    CREATE TABLE file (
                        id INTEGER PRIMARY KEY,
                        path TEXT NOT NULL UNIQUE,         -- absolute
                        root TEXT NOT NULL,
                        dir TEXT NOT NULL,
                        size INTEGER NOT NULL,
                        mtime_ns INTEGER NOT NULL,
                        inode INTEGER NOT NULL,
                        device INTEGER NOT NULL,
                        content_hash TEXT,
                        kind TEXT NOT NULL,
                        role TEXT NOT NULL,
                        status TEXT NOT NULL,              -- ok | error | orphan
                        last_error TEXT,
                        classification BLOB,               -- JSON FileClassification: re-assembly without re-probing
                        asset_id INTEGER REFERENCES asset(id) ON DELETE SET NULL,
                        first_run INTEGER NOT NULL,
                        last_run INTEGER NOT NULL
                    );
                    CREATE INDEX file_dir ON file(dir);
                    CREATE INDEX file_root ON file(root);
                    CREATE INDEX file_hash ON file(content_hash);

                    CREATE TABLE collection_list (
                        id INTEGER PRIMARY KEY,
                        local_identifier TEXT NOT NULL UNIQUE,
                        type INTEGER NOT NULL, subtype INTEGER NOT NULL,
                        title TEXT, start_date TEXT, end_date TEXT,
                        parent_id INTEGER REFERENCES collection_list(id) ON DELETE SET NULL
                    );
                    CREATE TABLE collection (
                        id INTEGER PRIMARY KEY,
                        local_identifier TEXT NOT NULL UNIQUE,
                        type INTEGER NOT NULL, subtype INTEGER NOT NULL,
                        title TEXT, start_date TEXT, end_date TEXT,
                        latitude REAL, longitude REAL,
                        predicate TEXT,                    -- smart albums: evaluated when read
                        list_id INTEGER REFERENCES collection_list(id) ON DELETE SET NULL,
                        transient INTEGER NOT NULL DEFAULT 0
                    );
                    CREATE TABLE collection_membership (
                        collection_id INTEGER NOT NULL REFERENCES collection(id) ON DELETE CASCADE,
                        asset_id INTEGER NOT NULL REFERENCES asset(id) ON DELETE CASCADE,
                        position INTEGER NOT NULL,
                        PRIMARY KEY (collection_id, asset_id)
                    );
                    CREATE INDEX membership_asset ON collection_membership(asset_id);

                    CREATE TABLE change (
                        token INTEGER PRIMARY KEY AUTOINCREMENT,
                        run_id INTEGER,
                        at TEXT NOT NULL,
                        object_type TEXT NOT NULL,         -- asset | assetCollection | collectionList
                        local_identifier TEXT NOT NULL,
                        change_type TEXT NOT NULL,         -- inserted | updated | deleted
                        properties TEXT NOT NULL DEFAULT ''
                    );
                    CREATE INDEX change_object ON change(object_type, token);

                    CREATE TABLE error (
                        id INTEGER PRIMARY KEY,
                        run_id INTEGER NOT NULL REFERENCES ingest_run(id) ON DELETE CASCADE,
                        path TEXT NOT NULL,
                        stage TEXT NOT NULL,
                        reason TEXT NOT NULL,
                        at TEXT NOT NULL
                    );
                    CREATE INDEX error_run ON error(run_id);

                    -- Readable views for sqlite3 / DuckDB / Datasette users.
                    CREATE VIEW assets_view AS
                    SELECT local_identifier, cloud_identifier, primary_path, filename,
                        CASE media_type WHEN 1 THEN 'image' WHEN 2 THEN 'video' WHEN 3 THEN 'audio' ELSE 'unknown' END AS media_type,
                        rtrim(
                            CASE WHEN media_subtypes & 1 THEN 'photoPanorama,' ELSE '' END ||
                            CASE WHEN media_subtypes & 2 THEN 'photoHDR,' ELSE '' END ||
                            CASE WHEN media_subtypes & 4 THEN 'photoScreenshot,' ELSE '' END ||
                            CASE WHEN media_subtypes & 8 THEN 'photoLive,' ELSE '' END ||
                            CASE WHEN media_subtypes & 16 THEN 'photoDepthEffect,' ELSE '' END ||
                            CASE WHEN media_subtypes & 64 THEN 'photoAnimation,' ELSE '' END ||
                            CASE WHEN media_subtypes & 1024 THEN 'spatialMedia,' ELSE '' END ||
                            CASE WHEN media_subtypes & 65536 THEN 'videoStreamed,' ELSE '' END ||
                            CASE WHEN media_subtypes & 131072 THEN 'videoHighFrameRate,' ELSE '' END ||
                            CASE WHEN media_subtypes & 262144 THEN 'videoTimelapse,' ELSE '' END ||
                            CASE WHEN media_subtypes & 524288 THEN 'videoScreenRecording,' ELSE '' END ||
                            CASE WHEN media_subtypes & 2097152 THEN 'videoCinematic,' ELSE '' END, ',') AS media_subtypes,
                        traits,
                        CASE playback_style WHEN 1 THEN 'image' WHEN 2 THEN 'imageAnimated' WHEN 3 THEN 'livePhoto'
                            WHEN 4 THEN 'video' WHEN 5 THEN 'videoLooping' ELSE 'unsupported' END AS playback_style,
                        creation_date, creation_offset, latitude, longitude, pixel_width, pixel_height, duration,
                        content_identifier, burst_identifier, has_adjustments, is_favorite, is_hidden,
                        trashed_at IS NOT NULL AS is_trashed, make, model, lens_model
                    FROM asset;

                    CREATE VIEW resources_view AS
                    SELECT a.local_identifier, r.ord,
                        CASE r.type WHEN 1 THEN 'photo' WHEN 2 THEN 'video' WHEN 3 THEN 'audio' WHEN 4 THEN 'alternatePhoto'
                            WHEN 5 THEN 'fullSizePhoto' WHEN 6 THEN 'fullSizeVideo' WHEN 7 THEN 'adjustmentData'
                            WHEN 8 THEN 'adjustmentBasePhoto' WHEN 9 THEN 'pairedVideo' WHEN 10 THEN 'fullSizePairedVideo'
                            WHEN 11 THEN 'adjustmentBasePairedVideo' WHEN 12 THEN 'adjustmentBaseVideo' ELSE 'other' END AS type,
                        r.path, r.original_filename, r.uti, r.file_size, r.content_hash, r.byte_offset, r.byte_length
                    FROM resource r JOIN asset a ON a.id = r.asset_id;

                    CREATE VIEW errors_view AS
                    SELECT e.run_id, e.path, e.stage, e.reason, e.at FROM error e ORDER BY e.id;
                    """)
        }
        m.registerMigration("v2: file.asset_id index") { db in
            try db.execute(sql: "CREATE INDEX IF NOT EXISTS file_asset ON file(asset_id)")
        }
        m.registerMigration("v3: collection list children") { db in
            // Child collection/list local identifiers, one per line (moment clusters and years, folders).
            try db.execute(sql: "ALTER TABLE collection_list ADD COLUMN children TEXT NOT NULL DEFAULT ''")
            try db.execute(sql: "CREATE INDEX IF NOT EXISTS collection_type ON collection(type, subtype)")
        }
        m.registerMigration("v4: classifications out of the file table") { db in
            // The file table is what a re-ingest scans; the stored classifications (kilobytes each) live
            // beside it so that scan touches small rows only.
            try db.execute(
                sql: """
                    CREATE TABLE file_classification (path TEXT PRIMARY KEY, classification BLOB NOT NULL) WITHOUT ROWID;
                    INSERT INTO file_classification(path, classification) SELECT path, classification FROM file WHERE classification IS NOT NULL;
                    ALTER TABLE file ADD COLUMN classified INTEGER NOT NULL DEFAULT 0;
                    UPDATE file SET classified = 1 WHERE classification IS NOT NULL;
                    UPDATE file SET classification = NULL;
                    """)
        }
        m.registerMigration("v5: saved fetch tokens") { db in
            // Saved fetches (transient collections) keep the change token of their save, and their fetch
            // options (JSON) in `predicate`, so `query --changes NAME` can re-run them and diff.
            try db.execute(sql: "ALTER TABLE collection ADD COLUMN saved_token TEXT")
        }
        m.registerMigration("v6: outcomes and honest runs") { db in
            // Error rows say how bad they are (damaged: catalogued; failed: not); a skipped file (not media)
            // keeps its category; a run knows the process that runs it, so a killed run can be found.
            try db.execute(
                sql: """
                    ALTER TABLE error ADD COLUMN severity TEXT NOT NULL DEFAULT 'failed';
                    ALTER TABLE file ADD COLUMN skip_category TEXT;
                    ALTER TABLE ingest_run ADD COLUMN pid INTEGER;
                    ALTER TABLE ingest_run ADD COLUMN host TEXT;
                    ALTER TABLE ingest_run ADD COLUMN damaged INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE ingest_run ADD COLUMN skipped INTEGER NOT NULL DEFAULT 0;
                    DROP VIEW IF EXISTS errors_view;
                    CREATE VIEW errors_view AS
                    SELECT e.run_id, e.severity, e.path, e.stage, e.reason, e.at FROM error e ORDER BY e.id;
                    """)
        }
        m.registerMigration("v7: facts stored, judgements derived") { db in
            // Each file's probe facts (its ProbeReport as JSON, with the probe's version) replace the stored
            // classification: classification, assembly and organize are recomputed from facts when the
            // rules change. A catalog from before has no facts: its files are probed once more, then never
            // again for a rules change. Users' own edits are remembered so a re-derivation keeps them.
            let hadFiles = try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM file)") ?? false
            try db.execute(
                sql: """
                    CREATE TABLE file_facts (path TEXT PRIMARY KEY, facts BLOB NOT NULL);  -- rowid: blobs of KBs
                    -- What a folder was last derived to (a digest of its assets' columns and resources), so a
                    -- re-derivation that arrives at the same assets writes nothing.
                    CREATE TABLE folder_digest (dir TEXT PRIMARY KEY, digest TEXT NOT NULL) WITHOUT ROWID;
                    ALTER TABLE file ADD COLUMN probe_version INTEGER;
                    DROP TABLE file_classification;
                    UPDATE file SET classified = 0;
                    ALTER TABLE asset ADD COLUMN user_properties TEXT NOT NULL DEFAULT '';
                    """)
            if hadFiles {
                try db.execute(
                    sql: "INSERT OR REPLACE INTO meta(key, value) VALUES ('upgrade_note', ?)",
                    arguments: ["catalog upgraded to store probe facts: every file is read once more by this ingest; later rules changes need no re-reading"])
            }
        }
        m.registerMigration("speed: file.sample_hash (--hash sampled|none), vanishing assets index") { db in
            // The partial hash of a file hashed with `--hash sampled|none`: files that share it are hashed in
            // full (content_hash), and it is kept so that later look-alikes and duplicates are still found by it.
            // NULL for files hashed with `--hash full`. The identities (device, inode) sharing a partial hash
            // are read from the index alone. Assets whose files vanished are few: a partial index finds them
            // (a move is looked for among them) without scanning every asset of a content hash.
            try db.execute(
                sql: """
                    ALTER TABLE file ADD COLUMN sample_hash TEXT;
                    CREATE INDEX file_sample_hash ON file(sample_hash, device, inode);
                    CREATE INDEX asset_vanishing ON asset(id) WHERE pending_vanish = 1 OR trashed_at IS NOT NULL;
                    """)
        }
        m.registerMigration("v8: query indexes") { db in
            // Queries at a million assets (issue 17; plans in docs/catalog.md). The predicate compiler writes
            // `mediaSubtypes CONTAINS x` as `media_subtypes IN (the values present with bit x)`, found by one
            // seek per distinct value in asset_subtypes, which also holds every column of the default filters
            // (hidden, trashed, burst representative): a count reads this index alone. A burst's
            // representative is found in asset_burst_representative without reading rows (asset_burst was its
            // prefix). A page of one media type sorted by date walks asset_type_creation in order and stops
            // after the limit, with or without planner statistics (asset_type alone led SQLite to sort the
            // whole media type when the catalog has none, as catalogs made by ingest do not).
            try db.execute(
                sql: """
                    CREATE INDEX asset_subtypes ON asset(media_subtypes, is_hidden, trashed_at, burst_identifier, represents_burst);
                    CREATE INDEX asset_burst_representative ON asset(burst_identifier, represents_burst);
                    DROP INDEX IF EXISTS asset_burst;
                    CREATE INDEX asset_type_creation ON asset(media_type, creation_date);
                    """)
        }
        m.registerMigration("places: asset place and local time") { db in
            // Derived by the organize stage from GPS and dates (docs/places.md): the GeoNames place of the
            // asset's position, and for a date without offset the local time with the offset of the zone
            // there (or borrowed from a neighbour), with the reason and confidence.
            try db.execute(
                sql: """
                    ALTER TABLE asset ADD COLUMN place_id INTEGER;
                    ALTER TABLE asset ADD COLUMN place_name TEXT;
                    ALTER TABLE asset ADD COLUMN place_admin1 TEXT;
                    ALTER TABLE asset ADD COLUMN place_country TEXT;
                    ALTER TABLE asset ADD COLUMN place_country_name TEXT;
                    ALTER TABLE asset ADD COLUMN place_reason TEXT;
                    ALTER TABLE asset ADD COLUMN local_date TEXT;
                    ALTER TABLE asset ADD COLUMN local_offset INTEGER;
                    ALTER TABLE asset ADD COLUMN time_zone TEXT;
                    ALTER TABLE asset ADD COLUMN zone_reason TEXT;
                    ALTER TABLE asset ADD COLUMN zone_confidence TEXT;
                    ALTER TABLE asset ADD COLUMN places_derived INTEGER NOT NULL DEFAULT 0;  -- 1: seen by the places step
                    CREATE INDEX asset_place_country ON asset(place_country);
                    """)
        }
        m.registerMigration("organize: inputs of the last organize") { db in
            // What the organize stage last read of each live asset (docs/architecture.md, organize), so the
            // next one recomputes bursts, places and moments only where those inputs changed.
            try db.execute(sql: Catalog.organizeInputTable)
        }
        m.registerMigration("bursts: the files' own burst identifier") { db in
            // `burst_identifier` is organize's (the set an asset is in: by Apple's BurstUUID or Google's BurstID
            // as the files write it, or found by name or time); the identifier the files give is kept beside it
            // (docs/catalog.md), so a folder derived again leaves organize's value alone. The files' value is
            // the stored one where the asset's reasons name it as read (the classifier's "BurstUUID=…" or
            // "GCamera:BurstID=…"): an identifier organize found by name or time is no file's. Why an asset is
            // in its set, and why its representative is, is organize's `burst_reason` (lines as `reasons`).
            try db.execute(
                sql: """
                    ALTER TABLE asset ADD COLUMN file_burst_identifier TEXT;
                    ALTER TABLE asset ADD COLUMN burst_reason TEXT;
                    UPDATE asset SET file_burst_identifier = burst_identifier
                        WHERE burst_identifier IS NOT NULL
                        AND (instr(reasons, 'BurstUUID=' || burst_identifier) > 0 OR instr(reasons, 'GCamera:BurstID=' || burst_identifier) > 0);
                    ALTER TABLE organize_input ADD COLUMN file_burst_identifier TEXT;
                    UPDATE organize_input SET file_burst_identifier = (SELECT a.file_burst_identifier FROM asset a WHERE a.id = organize_input.asset_id);
                    """)
        }
        m.registerMigration("collections: the user's apart from organize's") { db in
            // Albums and folders a user made (`shoebox change --create-album/--create-folder`) are the user's:
            // organize, which rebuilds the albums and folders of the directories on every run, leaves them
            // alone (it deleted them: nothing told them apart). A catalog from before tells them by identifier:
            // organize's are name-based UUIDs (version 5, `StableIdentifier`), a user's random ones (version 4,
            // as are those `requests --replay` made).
            try db.execute(
                sql: """
                    ALTER TABLE collection ADD COLUMN by_user INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE collection_list ADD COLUMN by_user INTEGER NOT NULL DEFAULT 0;
                    UPDATE collection SET by_user = 1 WHERE type = 1 AND transient = 0 AND substr(local_identifier, 15, 1) = '4';
                    UPDATE collection_list SET by_user = 1 WHERE type = 2 AND substr(local_identifier, 15, 1) = '4';
                    """)
        }
        m.registerMigration("moves: file inode index") { db in
            // A file met at a path the catalog does not know is looked up by its version (device, inode, size,
            // modification time) among the stored files: moved into a folder walked before the one it left, it
            // takes over that row's facts instead of being read again (`MovedFacts`). Deferred in a first ingest,
            // which looks nothing up.
            try db.execute(sql: "CREATE INDEX file_inode ON file(inode)")
        }
        m.registerMigration("moves: facts an interrupted run set aside") { db in
            // What an interrupted ingest had set aside for moved files and no file took over (`MovedOut.swift`):
            // the next ingest looks its new files up there too. Only the ingest reads it.
            try db.execute(sql: Catalog.movedOutTable)
        }
        m.registerMigration("organize: what it read and what it made albums, folders and moments from") { db in
            // The directory each album and folder organize made from the tree was made from (`OrganizeFolders.swift`),
            // each dated asset's instant and what the moment lists are built from (`OrganizeMoments.swift`): an
            // incremental organize rebuilds the albums and folders of the top-level directories its changed
            // assets are in, and the moments of the stretch of time they can move. Empty here: the next organize
            // builds everything and fills them. Only organize reads them.
            try db.execute(sql: Catalog.organizeFolderTable)
            try db.execute(sql: Catalog.organizeMomentTables)
            // And the assets written since the last organize recorded its inputs, kept by triggers
            // (`organize_pending`): the next compares those, not every asset (once it has left it complete).
            try db.execute(sql: Catalog.organizePendingTable)
        }
        return m
    }
}
