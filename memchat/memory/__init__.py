"""Long-term memory, grouped by stage: what happens to a memory, in order.

store/ keeps memories (the only door to their rows); recall/ finds them (embeddings, hybrid
search, the second-stage relevance); judge/ decides what a call is sent; capture/ learns new
ones from conversations; forget/ takes them out again, leaving nothing. text.py is how all of
them read words.
"""
