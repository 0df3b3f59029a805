"""The JSON-like spans of a reply: balanced brackets in prose."""
