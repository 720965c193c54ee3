// The text of docs/requests.schema.json, embedded so the CLI validates without the source tree.
// RequestsTests checks that the two are the same JSON; edit both together.

extension RequestsManifest {
    public static let schemaText = #"""
{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$id": "https://shoebox.invalid/schemas/requests.schema.json",
  "title": "Shoebox creation-request manifest: one JSON Lines line",
  "description": "Line 1 is the header. Then asset creation requests, then collection-list (folder) creation requests parent before child, then collection (album) creation requests. A line refers only to placeholders defined on earlier lines: an album names its folder (parent) and its member assets; a folder names its parent folder. Paths are relative to the header's root, never absolute, never containing a '..' segment.",
  "oneOf": [
    { "$ref": "#/$defs/header" },
    { "$ref": "#/$defs/assetCreationRequest" },
    { "$ref": "#/$defs/collectionListCreationRequest" },
    { "$ref": "#/$defs/collectionCreationRequest" }
  ],
  "$defs": {
    "placeholder": {
      "type": "string",
      "pattern": "^[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}/L0/0[0-9]{2}$"
    },
    "optionalPlaceholder": {
      "anyOf": [ { "$ref": "#/$defs/placeholder" }, { "type": "null" } ]
    },
    "line": { "type": "integer", "minimum": 2 },
    "relativePath": {
      "type": "string",
      "pattern": "^(?!/)(?!\\.\\.(/|$))(?!.*/\\.\\.(/|$))[^\\u0000]+$"
    },
    "header": {
      "type": "object",
      "additionalProperties": false,
      "required": ["kind", "version", "catalogID", "root", "createdAt"],
      "properties": {
        "kind": { "enum": ["header"] },
        "version": { "enum": [1] },
        "catalogID": { "type": "string" },
        "root": { "type": "string", "pattern": "^/" },
        "createdAt": { "type": "string", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}" }
      }
    },
    "resource": {
      "type": "object",
      "additionalProperties": false,
      "required": ["type", "path", "originalFilename", "uniformTypeIdentifier", "fileSize", "contentHash", "byteRange"],
      "properties": {
        "type": {
          "enum": ["photo", "video", "pairedVideo", "alternatePhoto", "fullSizePhoto", "fullSizeVideo", "fullSizePairedVideo", "adjustmentData"]
        },
        "path": { "$ref": "#/$defs/relativePath" },
        "originalFilename": { "type": "string" },
        "uniformTypeIdentifier": { "type": ["string", "null"] },
        "fileSize": { "type": ["integer", "null"], "minimum": 0 },
        "contentHash": { "type": ["string", "null"] },
        "byteRange": {
          "anyOf": [
            {
              "type": "object",
              "additionalProperties": false,
              "required": ["offset", "length"],
              "properties": {
                "offset": { "type": "integer", "minimum": 0 },
                "length": { "type": "integer", "minimum": 0 }
              }
            },
            { "type": "null" }
          ]
        }
      }
    },
    "assetCreationRequest": {
      "type": "object",
      "additionalProperties": false,
      "required": ["kind", "line", "placeholder", "resources", "creationDate", "location", "isFavorite", "isHidden", "mediaType", "mediaSubtypes", "traits"],
      "properties": {
        "kind": { "enum": ["assetCreationRequest"] },
        "line": { "$ref": "#/$defs/line" },
        "placeholder": { "$ref": "#/$defs/placeholder" },
        "resources": { "type": "array", "minItems": 1, "items": { "$ref": "#/$defs/resource" } },
        "creationDate": {
          "anyOf": [
            { "type": "string", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?([+-][0-9]{2}:[0-9]{2})?$" },
            { "type": "null" }
          ]
        },
        "location": {
          "anyOf": [
            {
              "type": "object",
              "additionalProperties": false,
              "required": ["latitude", "longitude", "altitude"],
              "properties": {
                "latitude": { "type": "number", "minimum": -90, "maximum": 90 },
                "longitude": { "type": "number", "minimum": -180, "maximum": 180 },
                "altitude": { "type": ["number", "null"] }
              }
            },
            { "type": "null" }
          ]
        },
        "isFavorite": { "type": "boolean" },
        "isHidden": { "type": "boolean" },
        "mediaType": { "enum": ["unknown", "image", "video", "audio"] },
        "mediaSubtypes": {
          "type": "array",
          "items": {
            "enum": ["photoPanorama", "photoHDR", "photoScreenshot", "photoLive", "photoDepthEffect", "photoAnimation", "spatialMedia",
              "videoStreamed", "videoHighFrameRate", "videoTimelapse", "videoScreenRecording", "videoCinematic"]
          }
        },
        "traits": { "type": "array", "items": { "type": "string", "pattern": "^[A-Za-z0-9_.-]+$" } }
      }
    },
    "collectionListCreationRequest": {
      "type": "object",
      "additionalProperties": false,
      "required": ["kind", "line", "placeholder", "title", "parent"],
      "properties": {
        "kind": { "enum": ["collectionListCreationRequest"] },
        "line": { "$ref": "#/$defs/line" },
        "placeholder": { "$ref": "#/$defs/placeholder" },
        "title": { "type": "string" },
        "parent": { "$ref": "#/$defs/optionalPlaceholder" }
      }
    },
    "collectionCreationRequest": {
      "type": "object",
      "additionalProperties": false,
      "required": ["kind", "line", "placeholder", "title", "parent", "members"],
      "properties": {
        "kind": { "enum": ["collectionCreationRequest"] },
        "line": { "$ref": "#/$defs/line" },
        "placeholder": { "$ref": "#/$defs/placeholder" },
        "title": { "type": "string" },
        "parent": { "$ref": "#/$defs/optionalPlaceholder" },
        "members": { "type": "array", "items": { "$ref": "#/$defs/placeholder" } }
      }
    }
  }
}
"""#
}
