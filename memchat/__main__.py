"""`python -m memchat`: the same as the `memchat` command."""

from memchat.cli.entry import main

main()
