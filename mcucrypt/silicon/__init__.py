# SPDX-License-Identifier: MIT
"""Real silicon: flashable benchmark images for the papers' boards, run on QEMU, simavr and the project's
own virtual boards, and the serial logs they print turned back into bench records.

- ``boards``: the real boards (``REAL_BOARDS``): which virtual board, compiler flags, support files,
  QEMU machine, flash commands.
- ``image``: ``mcucrypt firmware``: records every call of the vector checks and bench operations on the
  virtual board, writes them as tables in C, compiles them with the implementations and the board's
  support files (``boards/real/``) into ELF, .bin and Intel .hex.
- ``virtual``: ``run_image``: the same image executed from its reset vector on the virtual boards (and,
  for CI, on QEMU / simavr), UART captured, cycle counters emulated.
- ``ingest``: ``mcucrypt ingest``: a captured serial log -> a bench JSON file.
- ``cli``: the two subcommands' ``register(subparsers)``.
"""
