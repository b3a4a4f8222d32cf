"""Judging what a call needs: the memory section of the system prompt.

`inject` builds the section (pins, rules, then what clears the relevance bar, within the
budget); `personal` tells a message about someone's own world from a general question;
`sensitive` keeps private subjects need-to-know; `state` withholds a past message whose memory
was forgotten, is pending, or moved on.
"""
