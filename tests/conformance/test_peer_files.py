"""The committed peer values are what pytrec_eval and ranx give today (an extra check
where the test extras are installed; not a ``conformance`` test, which must need
nothing beyond the repository)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.reference

PEERS = Path(__file__).resolve().parent / "peers"


def test_peer_files_are_what_the_libraries_give_today() -> None:
    """Remake the peer files with the installed libraries: the same bytes (the
    versions are recorded in the files)."""
    pytest.importorskip("pytrec_eval", reason="pytrec_eval (a test extra) is not installed")
    pytest.importorskip("ranx", reason="ranx (a test extra) is not installed")
    from tests.conformance import make_peer_outputs

    for name, data in make_peer_outputs.files().items():
        assert (PEERS / name).read_bytes() == data, name
