"""Forgetting that leaves nothing, and keeping data only as long as the user wants.

`erase` takes memories out of rows, the audit trail, the full-text index and the vectors;
`scrub` finishes the job in everything that still mentions them (withheld messages, files,
free pages); `redact` takes them out of summaries; `retention` enforces the purge windows.
"""
