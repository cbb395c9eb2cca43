# SPDX-License-Identifier: MIT
"""Run implementations' vectors and differential cases in the host sanitizer build (ASan + UBSan).

The sanitized library can only be loaded into a Python whose process already has the sanitizer
runtime, so the tests start this module in a subprocess with LD_PRELOAD set (see ``sanitizer_env``).
"""
from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys

from .catalog import load_catalog
from .firmware import Firmware
from .kinds.base import driver_for, representative


def sanitizer_env() -> dict[str, str]:
    libs = []
    for lib in ("libasan.so", "libubsan.so"):
        path = subprocess.run(["gcc", f"-print-file-name={lib}"], capture_output=True, text=True,
                              check=True).stdout.strip()
        libs.append(path)
    env = dict(os.environ)
    env["LD_PRELOAD"] = " ".join(libs)
    # Python itself leaks by design at exit; we look for memory errors in our code, not leaks.
    env["ASAN_OPTIONS"] = "detect_leaks=0:abort_on_error=1"
    env["UBSAN_OPTIONS"] = "halt_on_error=1:print_stacktrace=1"
    return env


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("prim")
    p.add_argument("impl")
    p.add_argument("--random", type=int, default=None,
                   help="random differential cases (default: the kind's sanitizer_trials, 50 for most)")
    p.add_argument("--representative", action="store_true",
                   help="of the official vectors, the representative subset `make test` runs on the boards "
                        "(kinds/base.py: representative) instead of all")
    opts = p.parse_args(argv)
    cat = load_catalog()
    impl = cat.implementation(opts.prim, opts.impl)
    driver = driver_for(impl.primitive.kind)
    fw = Firmware(impl, opts.prim, "host", sanitize=True)
    vectors = driver.default_selection(fw)
    if opts.representative:
        vectors = representative(vectors, driver.board_test_vectors)
    count = driver.check_vectors(fw, vectors)
    trials = driver.sanitizer_trials if opts.random is None else opts.random
    n = driver.differential(fw, random.Random(f"asan/{opts.prim}/{opts.impl}"), trials)
    print(f"{opts.prim} {opts.impl}: {count} vectors and {n} random cases clean under ASan+UBSan")
    return 0


if __name__ == "__main__":
    sys.exit(main())
