"""memchat: a terminal chat assistant that remembers."""

__version__ = "0.1.0"
