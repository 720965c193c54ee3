/// The Shoebox catalog (SQLite through GRDB).
public enum CatalogInfo { public static let schemaVersion = 1 }
