"""JSON Schemas shipped with rebis-pbm (see schemas.py)."""
