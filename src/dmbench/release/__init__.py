"""What leaves the machine: the Zenodo deposit and the downloader's check of it."""
