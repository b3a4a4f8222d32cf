"""`memchat recall`, `memchat memories ...`, `memchat import`, `memchat reindex`."""
