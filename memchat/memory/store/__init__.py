"""Storing memories: the only door to the `memories` rows and their audit trail.

`memories.MemoryStore` adds, updates, supersedes, pins and forgets, each in one transaction
with a history row; `records` says what a memory is (fields, kinds, statuses, origins);
`kinds` tells a rule from a fact in what the user asked to keep; `schema` holds the SQL of
the memory migrations; `transfer` exports and imports memories as JSON or Markdown.
"""
