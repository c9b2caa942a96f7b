"""The sequences over whole packages: the main job, and the changes that lock and refresh one."""
