"""A reply's candidates: found, ordered, repaired, chosen."""
