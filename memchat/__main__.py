"""`python -m memchat`: the same as the `memchat` command."""

from memchat.cli.main import main

main()
