"""Capturing memories from conversations, off the critical path.

`turns` runs one capture over a session's new turns (one call to the memory model);
`extract` is that call (tool use, typed candidates); `policy` decides what each candidate
becomes (added, merged, superseded, pending, skipped); `background` runs capture in a thread
or a detached process, one at a time.
"""
