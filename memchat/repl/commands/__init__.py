"""The REPL's slash commands, one module per concern; memchat.repl.registry lists them."""
