"""Files: capped reads, atomic writes, the record lock, and every file name rebis-pbm uses."""
