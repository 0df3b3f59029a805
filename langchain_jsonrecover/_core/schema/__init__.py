"""Schemas: validation, the aligned reading, keys and words."""
