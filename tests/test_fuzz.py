# SPDX-License-Identifier: MIT
"""The differential fuzzer runs for its budget, reports what it ran, and stops on a disagreement."""
from __future__ import annotations

from mcucrypt import fuzz
from mcucrypt.kinds import blockcipher


def test_fuzzer_reports_what_it_ran(capsys) -> None:
    assert fuzz.main(["--budget", "3", "--seed", "7", "--target", "host", "--prim", "lea128",
                      "--prim", "mpmul256", "--prim", "tinyjambu128"]) == 0
    out = capsys.readouterr().out
    assert "seed 7" in out and "agreed with the models" in out
    assert "lea128" in out and "mpmul256" in out and "tinyjambu128" in out


def test_fuzzer_stops_on_a_disagreement(capsys, monkeypatch) -> None:
    """Feed the fuzzer a wrong model: it must report the mismatch and its seed, and fail."""
    from mcucrypt.models import lea

    def wrong(prim_id: str, key: bytes, block: bytes) -> bytes:
        good = lea.encrypt(prim_id, key, block)
        return bytes([good[0] ^ 1]) + good[1:]

    class WrongModel:
        encrypt = staticmethod(wrong)
        decrypt = staticmethod(lea.decrypt)

    monkeypatch.setattr(blockcipher.BlockCipherDriver, "model", staticmethod(lambda prim: WrongModel))
    assert fuzz.main(["--budget", "3", "--seed", "1", "--target", "host", "--prim", "lea128"]) == 1
    assert "MISMATCH" in capsys.readouterr().out
