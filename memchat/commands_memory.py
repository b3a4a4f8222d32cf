"""REPL slash commands for long-term memory (/remember, /recall, /memories, /forget, /pin-memory)."""
