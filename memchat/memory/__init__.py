"""Long-term memory: store, embeddings, search, capture, injection."""
