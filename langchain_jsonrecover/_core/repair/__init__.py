"""Syntax repair: the linear pass and the single-edit search."""
