"""Reading a reply: reasoning, fences, tool-call markup, envelopes."""
