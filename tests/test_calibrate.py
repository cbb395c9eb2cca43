# SPDX-License-Identifier: MIT
"""`mcucrypt calibrate`: the parts that run without peer checkouts (the measurements themselves need the
peers' code, which stays outside this repository; docs/calibration.md holds their output)."""
from __future__ import annotations

from pathlib import Path

from mcucrypt import calibrate
from mcucrypt.cli import main


def test_bad_peer_dir_is_a_one_line_error(tmp_path: Path, capsys) -> None:
    assert main(["calibrate", "--peer-dir", str(tmp_path / "missing")]) == 2
    assert main(["calibrate", "--peer-dir", str(tmp_path)]) == 2       # no checkouts in it
    assert main(["calibrate", "--peer-dir", str(tmp_path), "--row", "nope"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 3 and all(line.startswith("mcucrypt: error: ") for line in err)


def test_rows_cite_their_sources_and_peers() -> None:
    keys = [r.key for r in calibrate.ROWS]
    assert len(keys) == len(set(keys))
    for r in calibrate.ROWS:
        assert r.peer in calibrate.PEERS and r.source in calibrate.SOURCES
        assert r.silicon[0] <= r.silicon[1] and r.unit in ("cycles", "c/B", "c/block")


def test_rv32_wrapper_times_the_routine_between_two_counter_reads() -> None:
    row = next(r for r in calibrate.ROWS if r.key == "rv-chacha20")
    text = calibrate._wrapper_rv32(row)
    assert "uint32_t calib_measure(void *out, const void *in, unsigned inlen" in text
    assert "chacha20(out, in, inlen, key, nonce, ctr);" in text
    first, call, second = (text.index(s) for s in ("t0 = calib_getcycles()", "chacha20(out",
                                                    "calib_getcycles() - t0"))
    assert first < call < second


def test_table_marks_rows_outside_the_tolerance() -> None:
    row = calibrate.ROWS[0]
    good = calibrate.Result(row, "0" * 40, 903.0, 903, 1.0)
    bad = calibrate.Result(row, "0" * 40, 880.0, 880, 880 / 903)
    text = calibrate.table([good, bad])
    assert text.count("outside ±1.5%") == 1 and "- I14: " in text
