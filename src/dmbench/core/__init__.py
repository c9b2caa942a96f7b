"""What every stage shares: atomic writes, hashes, paths, the CSV and JSON readers, provenance."""
