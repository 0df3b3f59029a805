"""Decoding a candidate: tolerant decoding, cuts closed, joins."""
