"""The `memchat` command: memchat.cli.main builds it from one module per command group."""
