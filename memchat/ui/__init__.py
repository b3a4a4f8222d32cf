"""Terminal output for the shells: consoles, streamed replies, tables, terminal helpers."""
