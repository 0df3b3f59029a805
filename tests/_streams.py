"""Standard streams for command tests: one whose every write fails.

A command writing to a closed pipe (``| head``) or a full disk meets an
``OSError`` on write; :func:`failing_stdout` stands in for ``sys.stdout`` so
a test can check how the command reports it.
"""

from __future__ import annotations

import io


class FailingBuffer(io.BytesIO):
    """A byte buffer that raises the given error on every write."""

    def __init__(self, error: OSError) -> None:
        super().__init__()
        self.error = error

    def write(self, data: object) -> int:
        raise self.error


def failing_stdout(error: OSError) -> io.TextIOWrapper:
    """A text stream over a :class:`FailingBuffer`, to patch ``sys.stdout`` with."""
    return io.TextIOWrapper(FailingBuffer(error))
