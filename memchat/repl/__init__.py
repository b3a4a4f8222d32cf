"""The chat REPL: the loop, its key bindings, toolbar and completer, and the slash commands."""
