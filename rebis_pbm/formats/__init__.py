"""Formats: strict YAML reading and writing, the JSON Schemas, and which file a document is."""
