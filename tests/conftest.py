"""Fixtures shared by the test modules.

Helpers that tests import by name live in modules named for what they hold
(``_models``, ``_modes``, ``_counting``, ``_json_values`` …); pytest puts this
folder on ``sys.path``, so ``from _modes import run`` works in any test module.
"""

from __future__ import annotations

import pytest
from _modes import MODES
from hypothesis import HealthCheck, settings

# Property tests: no example database, so that a failure found once does not
# stick to this clone and fail every later run; a failure prints the seed
# (``--hypothesis-seed=N`` reproduces it) and the reproduce blob instead.
# No per-example deadline and no too-slow health check: both time the example
# by the wall clock, so on a loaded machine (CI's, or two cores shared by
# several runs) they fail a draw that passes alone. Work is bounded by counting
# it in the tests that mean to, never by time.
settings.register_profile(
    "jsonrecover",
    database=None,
    print_blob=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("jsonrecover")


@pytest.fixture(params=MODES)
def mode(request: pytest.FixtureRequest) -> str:
    """``"sync"`` or ``"async"``: the test runs once in each."""
    value: str = request.param
    return value
