"""Moderation: reports, blocks, the admin role, moderators' actions and their log, the engine-use signal."""
