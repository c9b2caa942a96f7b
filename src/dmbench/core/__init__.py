"""What every stage shares: atomic writes, hashes, paths, the CSV and JSON readers, provenance.

The names below are the face the command line uses (paths, reading the user's files, writing
one file), so that it reaches this stage through one module.
"""

from dmbench.core.atomic import write_text
from dmbench.core.csvio import csv_text
from dmbench.core.inputs import display_name, json_objects, read_text
from dmbench.core.paths import default_sources_dir, fetch_cache_dir, package_dir

__all__ = [
    "csv_text",
    "default_sources_dir",
    "display_name",
    "fetch_cache_dir",
    "json_objects",
    "package_dir",
    "read_text",
    "write_text",
]
