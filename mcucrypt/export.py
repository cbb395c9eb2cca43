# SPDX-License-Identifier: MIT
"""`mcucrypt export`: a self-contained C library folder for one target, for a user's firmware.

    mcucrypt export --target rv32 [--core e31] [--prim lea128]... [--impl rv32-fast] --out DIR

The folder holds, for each chosen (primitive family, implementation):
  src/<family>_<impl>/...            the implementation's sources (and its family's headers), each source
                                     beginning with an #include of its configuration header
  src/mcucrypt/config_<unit>.h       MCU_IMPL and every layout define of the implementation, fixed, plus
                                     checks that the compiler targets the right architecture and ISA
  src/mcucrypt/<unit>.h              public header: the concrete function names, size macros, wipe helpers
  src/<family>_<impl>/mcu_stack_wipe.S  the public entry points that wipe the stack their call used
                                     (MCU_STACK_WIPE, on by default: mcucrypt/stackwipe.py)
and, for the whole library: src/mcucrypt.h (every public header and generic names such as
mcu_lea128_encrypt for the chosen implementation), src/mcucrypt/ns.h, src/mcucrypt/aead_instance.h, src/mcucrypt/top_bit.h,
src/mcucrypt/stack_wipe.h,
src/mcucrypt/wipe.h and
src/mcu_wipe.c, src/mcucrypt/declassify.h and src/mcu_declassify.c, a plain Makefile (libmcucrypt.a), CMakeLists.txt (a static library for add_subdirectory)
with cmake/toolchain.cmake for stand-alone builds, PlatformIO's library.json, Arduino's
library.properties (avr, armv7m), LICENSE, README.md and mcucrypt-export.json (what was chosen and why).

Without --impl each primitive id gets the fastest implementation that passes its official vectors and
runs on the core (mcucrypt/choose.py), among those claiming constant time unless --allow-variable-time.

`api_markdown()` renders docs/api.md from the same data the headers come from.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import tempfile
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from . import stackwipe
from .build import impl_define
from .catalog import CatalogError, Implementation, Primitive, Prototype, load_catalog
from .choose import ChoiceError, choose
from .cores import CORES, Core, CoreError, get_core
from .targets import ROOT, TARGETS

VERSION = "0.1.0"
SPDX_C = "// SPDX-License-Identifier: MIT"
SPDX_HASH = "# SPDX-License-Identifier: MIT"

# Compiler, archiver and architecture flags per target (what the user's toolchain must match).
# The archiver is gcc-ar (the LTO plugin's wrapper of ar): an archive of -flto objects needs its symbol
# index, which plain ar cannot write; for ordinary objects it is ar.
TOOLS = {
    "rv32": {"cc": "riscv64-unknown-elf-gcc", "cxx": "riscv64-unknown-elf-g++", "ar": "riscv64-unknown-elf-gcc-ar",
             "size": "riscv64-unknown-elf-size", "processor": "riscv32",
             "arch": ["-mabi=ilp32", "-mcmodel=medlow", "-msmall-data-limit=0"]},
    "armv7m": {"cc": "arm-none-eabi-gcc", "cxx": "arm-none-eabi-g++", "ar": "arm-none-eabi-gcc-ar",
               "size": "arm-none-eabi-size", "processor": "arm", "arch": ["-mcpu=cortex-m3", "-mthumb"]},
    "avr": {"cc": "avr-gcc", "cxx": "avr-g++", "ar": "avr-gcc-ar", "size": "avr-size", "processor": "avr",
            "arch": ["-mmcu=atmega128"]},
}
OPTFLAGS = ["-O2"]      # the exported Makefile's default; `make OPTFLAGS="-Os -flto"` builds it as firmware may
CFLAGS = ["-std=c99", "-ffreestanding", "-fno-builtin", "-ffunction-sections", "-fdata-sections",
          "-Wall", "-Wextra"]
PLATFORMIO = {"rv32": ["sifive"], "armv7m": ["ststm32", "atmelsam"], "avr": ["atmelavr"]}
ARDUINO_ARCH = {"armv7m": "sam", "avr": "avr"}      # Arduino Due (SAM3X8E, Cortex-M3); ATmega boards

# How a target is recognised by the compiler's predefined macros (config headers refuse anything else).
ARCH_CHECK = {
    "rv32": ("defined(__riscv) && __riscv_xlen == 32", "an RV32 compiler (riscv64-unknown-elf-gcc -march=rv32imac -mabi=ilp32)"),
    "armv7m": ("defined(__ARM_ARCH_7M__) || defined(__ARM_ARCH_7EM__)", "an ARMv7-M compiler (arm-none-eabi-gcc -mcpu=cortex-m3 -mthumb)"),
    "avr": ("defined(__AVR__)", "avr-gcc"),
}
RV32_EXT_MACRO = {"m": "__riscv_mul", "a": "__riscv_atomic", "c": "__riscv_compressed", "zbb": "__riscv_zbb",
                  "zbkb": "__riscv_zbkb", "zbkc": "__riscv_zbkc", "xmul64": "__riscv_xmul"}


class ExportError(ValueError):
    pass


# ------------------------------------------------------------------------------------- data per kind

def _ct_text(impl: Implementation, checked: bool = False) -> str:
    """The implementation's constant-time claim in words (META.yml `constant_time`)."""
    if impl.ct_claim == "strict":
        return "yes (checked by mcucrypt ct on the board)" if checked else "yes"
    if impl.ct_claim == "cacheless":
        return "on cores without data cache only (secret-indexed tables)"
    return "no (secret-indexed tables)" if impl.secret_dependent_addresses else "no"


def kind_of(prim: Primitive, prim_id: str) -> str:
    """The API kind of one id: the family's, or for a suite (Ascon) the instance's own."""
    return prim.instances[prim_id].get("kind", prim.kind) if prim.kind == "suite" else prim.kind


def ops_of(impl: Implementation, prim_id: str) -> dict[str, Prototype]:
    """The functions ``impl`` exports for ``prim_id`` (a suite's instance lists its own with ``ops``)."""
    only = impl.primitive.instances[prim_id].get("ops")
    return {op: proto for op, proto in impl.functions.items() if only is None or op in only}


def sizes(prim: Primitive, impl: Implementation, prim_id: str) -> list[tuple[str, int, str]]:
    """(macro suffix, value, meaning) of the buffer sizes of ``prim_id`` as ``impl`` uses them."""
    p = impl.params(prim_id)
    kind = kind_of(prim, prim_id)
    if kind == "blockcipher":
        rk_word = "uint32_t" in impl.functions["keyschedule"].params[0].ctype
        out = [("KEY_BYTES", p["key_bytes"], "key"), ("BLOCK_BYTES", p["block_bytes"], "one block"),
               ("RK_BYTES", p["rk_bytes"], "round keys (the key schedule's output)")]
        if rk_word:
            out.append(("RK_WORDS", p["rk_bytes"] // 4, "round keys in 32-bit words"))
        return out
    if kind == "stream":
        return [("KEY_BYTES", p["key_bytes"], "key"), ("NONCE_BYTES", p["nonce_bytes"], "nonce"),
                ("BLOCK_BYTES", p["block_bytes"], "one keystream block")]
    if kind == "aead":
        out = [("KEY_BYTES", p["key_bytes"], "key"), ("NONCE_BYTES", p["nonce_bytes"], "nonce (npub)"),
               ("TAG_BYTES", p["tag_bytes"], "tag appended to the ciphertext")]
        if "state_bytes" in p:
            out += [("STATE_BYTES", p["state_bytes"], "state of permute and the fixednonce functions"),
                    ("STATE_WORDS", p["state_bytes"] // 4, "state in 32-bit words")]
        if "ctx_bytes" in p:
            out.append(("CTX_BYTES", p["ctx_bytes"], "incremental context (aead_init ... aead_*_final)"))
        return out
    if kind == "hash":
        return [("OUT_BYTES", p["out_bytes"], "digest (hash) or default output length (XOF)"),
                ("CTX_BYTES", p["ctx_bytes"], "incremental context (init/update/final or squeeze)")]
    if kind == "mac" and "key_bytes" in p:      # one fixed key length (Poly1305, AES-CMAC): no keylen
        exact = p.get("min_tag_bytes", 4) == p["tag_bytes"]
        return [("KEY_BYTES", p["key_bytes"], "key (every key has this length)"),
                ("TAG_BYTES", p["tag_bytes"], "tag (mac, mac_final; verify takes "
                 + ("exactly TAG_BYTES)" if exact else "min_tag_bytes..TAG_BYTES)")),
                ("BLOCK_BYTES", p["block_bytes"], "the block the message is processed in"),
                ("CTX_BYTES", p["ctx_bytes"], "incremental context (mac_init/mac_update/mac_final)")]
    if kind == "mac":
        return [("TAG_BYTES", p["tag_bytes"], "tag (mac, mac_final; verify takes min_tag_bytes..TAG_BYTES)"),
                ("BLOCK_BYTES", p["block_bytes"], "the hash's block (keys longer than this are hashed first)"),
                ("CTX_BYTES", p["ctx_bytes"], "incremental context (mac_init/mac_update/mac_final)")]
    if kind == "kdf":
        return [("HASH_BYTES", p["hash_bytes"], "PRK (extract) and one expand block"),
                ("MAX_OKM_BYTES", 255 * p["hash_bytes"], "the longest OKM expand and hkdf give (else -1)")]
    if kind == "dh":
        return [("SCALAR_BYTES", p["scalar_bytes"], "private scalar (clamped inside)"),
                ("POINT_BYTES", p["point_bytes"], "u-coordinate: public key, peer's key or shared secret"),
                ("FE_WORDS", 8, "a field element for fe_mul / fe_sqr, in 32-bit limbs")]
    if kind == "signature" and "sign" not in impl.functions:      # verify only (LMS): no secret key here
        return [("PK_BYTES", p["pk_bytes"], "public key (the longest verify takes)"),
                ("SIG_BYTES", p["sig_bytes"], "signature (the longest verify takes)")]
    if kind == "signature":
        out = [("PK_BYTES", p["pk_bytes"], "public key (keygen's pk, verify's pk)"),
               ("SK_BYTES", p["sk_bytes"], "secret key as sign takes it (keygen's sk)"),
               ("SIG_BYTES", p["sig_bytes"], "signature (the longest sign writes)"),
               ("SEED_BYTES", p["seed_bytes"], "keygen's seed (the private key it expands)")]
        if p.get("rnd_bytes", 0):
            out.append(("RND_BYTES", p["rnd_bytes"], "sign's fresh randomness"))
        return out
    if kind == "kem":
        return [("EK_BYTES", p["ek_bytes"], "encapsulation (public) key"),
                ("DK_BYTES", p["dk_bytes"], "decapsulation (private) key"),
                ("CT_BYTES", p["ct_bytes"], "ciphertext"),
                ("SS_BYTES", p["ss_bytes"], "shared secret key"),
                ("SEED_BYTES", 32, "each of keygen's seeds d and z, and encaps's m")]
    if kind == "permutation":
        return [("STATE_BYTES", p["state_bytes"], "state")]
    if kind == "mpmul":
        n = p["bits"] // 32
        return [("OPERAND_WORDS", n, "a and b in 32-bit limbs"), ("OPERAND_BYTES", 4 * n, "a and b"),
                ("PRODUCT_WORDS", 2 * n, "r in 32-bit limbs"), ("PRODUCT_BYTES", 8 * n, "r")]
    raise ExportError(f"no export rules for kind {kind}")


def wipers(prim: Primitive, impl: Implementation, prim_id: str) -> list[tuple[str, str, str, str]]:
    """(helper suffix, parameter type, size macro suffix, what it holds): one per secret-holding type."""
    kind = kind_of(prim, prim_id)
    if kind == "blockcipher":
        t = "uint32_t" if "uint32_t" in impl.functions["keyschedule"].params[0].ctype else "uint8_t"
        return [("wipe_rk", t, "RK_BYTES", "round keys")]
    if kind == "stream":
        return [("wipe_key", "uint8_t", "KEY_BYTES", "a key")]
    if kind == "aead":
        return [("wipe_key", "uint8_t", "KEY_BYTES", "a key")] + (
            [("wipe_state", "uint32_t", "STATE_BYTES", "a fixed-nonce or permutation state")]
            if "state_bytes" in impl.params(prim_id) else []) + (
            [("wipe_ctx", "uint8_t", "CTX_BYTES", "an incremental context (it holds the key)")]
            if "ctx_bytes" in impl.params(prim_id) else [])
    if kind == "hash":
        return [("wipe_ctx", "uint8_t", "CTX_BYTES", "an incremental context (it holds the absorbed message)")]
    if kind == "mac":
        return [("wipe_ctx", "uint8_t", "CTX_BYTES", "an incremental context (it holds key-derived state)")]
    if kind == "kdf":
        return [("wipe_prk", "uint8_t", "HASH_BYTES", "a pseudorandom key (extract's output)")]
    if kind == "dh":
        return [("wipe_scalar", "uint8_t", "SCALAR_BYTES", "a private scalar"),
                ("wipe_shared", "uint8_t", "POINT_BYTES", "a shared secret")]
    if kind == "signature" and "sign" not in impl.functions:      # verify only: nothing secret
        return []
    if kind == "signature":
        return [("wipe_sk", "uint8_t", "SK_BYTES", "a secret key"),
                ("wipe_seed", "uint8_t", "SEED_BYTES", "a seed (the private key keygen expands)")]
    if kind == "kem":
        return [("wipe_dk", "uint8_t", "DK_BYTES", "a decapsulation key"),
                ("wipe_ss", "uint8_t", "SS_BYTES", "a shared secret key")]
    if kind == "permutation":
        return [("wipe_state", "uint8_t", "STATE_BYTES", "a state")]
    if kind == "mpmul":
        return [("wipe_operand", "uint32_t", "OPERAND_BYTES", "an operand"),
                ("wipe_product", "uint32_t", "PRODUCT_BYTES", "a product")]
    return []


# Facts for docs/api.md, per kind (every implementation of the kind behaves so; the tests check them
# through the kind drivers: vectors, the model, canaries around every buffer).
KIND_NOTES = {
    "blockcipher": [
        ("Byte order", "keys, blocks and counter blocks are byte strings exactly as in the specification's "
         "test vectors; round keys are opaque (only the implementation that wrote them may read them)."),
        ("Alignment", "`uint32_t *` round-key buffers 4-byte aligned; `uint8_t *` key, block and data "
         "pointers may have any alignment (the generic test calls every block cipher with unaligned ones)."),
        ("Overlap", "keep input and output buffers distinct (in-place operation is not tested)."),
        ("Return codes", "none (`void`): the functions cannot fail."),
        ("Key-schedule lifetime", "`keyschedule` writes RK_BYTES; the round keys stay valid, read-only, for any "
         "number of calls until the caller overwrites them; wipe them with `mcu_<id>_wipe_rk` when done. "
         "Where there is `keyschedule_dec`, decrypt takes its output, not keyschedule's."),
    ],
    "stream": [
        ("Byte order", "key, nonce and counter as RFC 8439: the counter is a 32-bit block counter; keystream "
         "bytes in order."),
        ("Alignment", "byte buffers are used at the alignment the tests place them: 4-byte aligned; keep "
         "them so (no unaligned-pointer test for this kind)."),
        ("Overlap", "keep input and output buffers distinct (in-place operation is not tested)."),
        ("Return codes", "none (`void`)."),
        ("Key lifetime", "no key schedule: each call reads the key; wipe your key with `mcu_<id>_wipe_key`."),
    ],
    "aead": [
        ("Byte order", "the NIST LWC API: byte strings as in the LWC KAT files; `*clen` = mlen + TAG_BYTES."),
        ("Alignment", "byte buffers: tested 4-byte aligned, keep them so; `uint32_t *state` 4-byte aligned."),
        ("Overlap", "no overlap between input and output buffers."),
        ("Return codes", "encrypt: 0. decrypt: 0 when the tag verifies, -1 otherwise; on -1 the output holds "
         "zeros, `*mlen` is 0, and the tag comparison is constant time."),
        ("Key/state lifetime", "no key schedule; the fixednonce state (STATE_BYTES) stays valid until "
         "overwritten and must never serve two messages unless a repeated nonce is acceptable (see the "
         "caveat in crypto/tinyjambu/ref/tinyjambu.h); wipe keys and states with `mcu_<id>_wipe_key` and "
         "`mcu_<id>_wipe_state`."),
    ],
    "hash": [
        ("Byte order", "messages, customization strings and outputs are byte strings as in the LWC KAT files and NIST's SHAVS response files."),
        ("Alignment", "byte buffers may have any alignment; `uint8_t *ctx` (CTX_BYTES) 4-byte aligned."),
        ("Overlap", "keep input and output buffers distinct."),
        ("Return codes", "`hash`: 0; the others `void`."),
        ("Context lifetime", "`init` (or `cxof_init`), then any number of `update`s, then `final` (hash) or "
         "`squeeze` (XOF, repeatable); the context holds state derived from the message: wipe it with "
         "`mcu_<id>_wipe_ctx` when done."),
    ],
    "mac": [
        ("Byte order", "keys, messages and tags are byte strings as in RFC 4231 and RFC 4493; HMAC keys of any "
         "length (longer than BLOCK_BYTES: hashed first, FIPS 198-1), AES-CMAC keys of 16 bytes (no keylen)."),
        ("Alignment", "byte buffers may have any alignment; `uint8_t *ctx` (CTX_BYTES) 4-byte aligned."),
        ("Overlap", "keep input and output buffers distinct."),
        ("Return codes", "`verify`: 0 when the first taglen bytes of the tag match, -1 otherwise and for "
         "taglen outside 4..TAG_BYTES; every byte is compared (constant time) and only the verdict is "
         "declassified. The others `void`."),
        ("Context lifetime", "`mac_init` (HMAC: the key's two blocks compressed; CMAC: round keys and "
         "subkeys), any number of `mac_update`s, then "
         "`mac_final`, which writes the tag and wipes the context; wipe an abandoned context with "
         "`mcu_<id>_wipe_ctx`."),
    ],
    "kdf": [
        ("Byte order", "salt, IKM, info, PRK and OKM are byte strings as in RFC 5869."),
        ("Alignment", "byte buffers may have any alignment."),
        ("Overlap", "keep the output distinct from the inputs."),
        ("Return codes", "`expand` and `hkdf`: 0, or -1 when okmlen exceeds MAX_OKM_BYTES (255 blocks; "
         "nothing written). `extract`: `void`."),
        ("Lifetime", "no state; wipe a PRK with `mcu_<id>_wipe_prk` when done, and your IKM and OKM."),
    ],
    "dh": [
        ("Byte order", "scalars and u-coordinates are 32-byte little-endian strings as in RFC 7748; the scalar "
         "is clamped and the top bit of u masked inside; non-canonical u is accepted."),
        ("Alignment", "byte buffers may have any alignment; `uint32_t *` field elements 4-byte aligned."),
        ("Overlap", "keep the output distinct from the inputs."),
        ("Return codes", "none (`void`); an all-zero shared secret (a low-order peer point) is returned as "
         "computed: reject it if your protocol requires."),
        ("Lifetime", "no state; wipe scalars and shared secrets with `mcu_<id>_wipe_scalar` / "
         "`mcu_<id>_wipe_shared`. `fe_mul`, `fe_sqr` and `ladder` (and `fe_invert` where the implementation "
         "brings its own inversion: rv32-fast, avr-fast) are exported for benchmarks and the constant-time "
         "checker."),
    ],
    "signature": [
        ("Byte order", "keys, messages and signatures are byte strings exactly as in the scheme's standard "
         "(Ed25519: RFC 8032; the secret key is seed || public key, 64 bytes)."),
        ("Alignment", "byte buffers may have any alignment."),
        ("Overlap", "keep the output distinct from the inputs."),
        ("Return codes", "0 on success; -1 on a refused input (verify: an invalid signature, a signature of the "
         "wrong length, a malformed or small-order public key; sign writes nothing it releases on failure)."),
        ("Lifetime", "no state; wipe secret keys and seeds with `mcu_<id>_wipe_sk` / `mcu_<id>_wipe_seed` when done."),
    ],
    "kem": [
        ("Byte order", "keys, ciphertexts, seeds and shared keys are byte strings as in FIPS 203 and NIST's "
         "ACVP vectors."),
        ("Alignment", "byte buffers may have any alignment."),
        ("Overlap", "keep outputs distinct from the inputs."),
        ("Return codes", "`keygen`: 0 (-1 only if the bounded matrix sampler ran out: probability below "
         "2^-261, FIPS 203 Appendix B). `encaps`: 0, or -1 with nothing written when ek fails the modulus "
         "check (FIPS 203 section 7.2). `decaps`: 0 (a forged ciphertext gives the implicit-rejection key, "
         "not an error), or -1 with ss zeroed when dk fails the hash check (section 7.3)."),
        ("Randomness", "the internal (deterministic) forms: the caller draws d, z (keygen) and m (encaps) "
         "from an approved random bit generator, 32 bytes each, fresh per call."),
        ("Lifetime", "no state; wipe dk with `mcu_<id>_wipe_dk`, shared keys with `mcu_<id>_wipe_ss`, and "
         "your seeds."),
    ],
    "permutation": [
        ("Byte order", "the state as the FIPS 202 byte string (lanes little-endian); except in an "
         "implementation that exports `interleave`/`deinterleave` (Keccak armv7m-fast, exported only by "
         "--impl): its permute takes its own bit-interleaved layout, converted in place by those two."),
        ("Alignment", "state tested 4-byte aligned; keep it so."),
        ("Return codes", "none (`void`)."),
        ("State lifetime", "in-place; wipe a state that held secrets with `mcu_<id>_wipe_state`."),
    ],
    "mpmul": [
        ("Byte order", "limbs are little-endian 32-bit words (limb 0 least significant); r has twice the "
         "limbs of a and b."),
        ("Alignment", "every buffer `uint32_t *`, 4-byte aligned."),
        ("Overlap", "r must not overlap a or b; a may equal b (both are only read: squaring)."),
        ("Return codes", "none (`void`)."),
        ("Lifetime", "no state; wipe secret operands and products with `mcu_<id>_wipe_operand` / "
         "`mcu_<id>_wipe_product`. `mul_n` (where present) takes `nwords` even, 2..64."),
    ],
}
# The doc comment of each function in the exported headers, per kind and operation: what it does, each
# parameter with its size, the return value, and what the caller must wipe. {P} is the size-macro prefix
# (MCU_<ID>_<IMPL>), {p} the function prefix (mcu_<id>_<impl>). An operation missing here gets a pointer
# to the API reference.
OP_DOCS: dict[str, dict[str, list[str]]] = {
    "blockcipher": {
        "keyschedule": ["Expands key ({P}_KEY_BYTES) into rk ({P}_RK_BYTES, opaque) for encrypt (and ctr).",
                        "Returns nothing. rk holds the key: wipe it with {p}_wipe_rk when done."],
        "keyschedule_dec": ["Expands key ({P}_KEY_BYTES) into rk ({P}_RK_BYTES) for decrypt (decrypt takes this "
                            "one, not keyschedule's). Returns nothing. Wipe rk with {p}_wipe_rk."],
        "encrypt": ["Encrypts one block: in and out {P}_BLOCK_BYTES each (distinct buffers), rk from keyschedule.",
                    "Returns nothing; reads rk only (reusable for any number of calls)."],
        "decrypt": ["Decrypts one block: in and out {P}_BLOCK_BYTES each (distinct buffers), rk from "
                    "keyschedule_dec where the implementation has it, else keyschedule. Returns nothing."],
        "encrypt_blocks": ["Encrypts nblocks consecutive blocks (ECB, nblocks * {P}_BLOCK_BYTES bytes; in and out "
                           "distinct). Returns nothing."],
        "ctr": ["Counter mode (NIST SP 800-38A): out = in XOR the key stream, len bytes (any length). iv: the "
                "initial counter block ({P}_BLOCK_BYTES, public, never reused with one key); its last four bytes "
                "are a big-endian counter incremented modulo 2^32. rk from keyschedule. Returns nothing."],
    },
    "stream": {
        "block": ["One key-stream block: out ({P}_BLOCK_BYTES) from key ({P}_KEY_BYTES), nonce ({P}_NONCE_BYTES, "
                  "never reused with one key) and the 32-bit block counter (RFC 8439). Returns nothing. out is key "
                  "stream: wipe it if unused."],
        "xor": ["out = in XOR the key stream from block `counter` on, len bytes; key ({P}_KEY_BYTES), nonce "
                "({P}_NONCE_BYTES, never reused with one key). Returns 0; -1 with nothing written when the "
                "32-bit block counter would wrap (counter + ceil(len / 64) > 2^32: the key stream would "
                "repeat)."],
        "permute": ["The ChaCha20 block function on a 16-word state (in, out: 64 bytes each; for benchmarks). "
                    "Returns nothing."],
    },
    "aead": {
        "aead_encrypt": ["Encrypts m (mlen bytes) and authenticates it with ad (adlen bytes): c gets mlen + "
                         "{P}_TAG_BYTES bytes, *clen that length. nsec: unused, pass NULL (the NIST LWC API's "
                         "secret message number). npub: the nonce, {P}_NONCE_BYTES, never twice under one key. "
                         "k: the key, {P}_KEY_BYTES. Returns 0."],
        "aead_decrypt": ["Verifies and decrypts c (clen bytes, the tag last) with ad (adlen bytes): m gets clen - "
                         "{P}_TAG_BYTES bytes, *mlen that length. nsec: unused, pass NULL. npub, k as for "
                         "encryption. Returns 0 when the tag verifies; -1 otherwise, with m zeroed and *mlen 0 "
                         "(nothing released; the tag comparison is constant time)."],
        "fixednonce_init_state": ["Runs the nonce setup once: state ({P}_STATE_BYTES, 4-byte aligned) from npub "
                                  "({P}_NONCE_BYTES) and k ({P}_KEY_BYTES). Returns nothing. The state is secret: "
                                  "wipe it with {p}_wipe_state."],
        "fixednonce_encrypt_from_state": ["As aead_encrypt, from a state of fixednonce_init_state (which stays "
                                          "unchanged). One state is one nonce: never encrypt two messages from it. "
                                          "Returns 0."],
        "fixednonce_decrypt_from_state": ["As aead_decrypt, from a state of fixednonce_init_state. Returns 0, or -1 "
                                          "with m zeroed and *mlen 0."],
        "permute": ["The keyed permutation on state ({P}_STATE_BYTES) for `steps` steps (for benchmarks and "
                    "the constant-time check). Returns nothing."],
        "aead_init": ["Starts an incremental (streaming) encryption or decryption in ctx ({P}_CTX_BYTES, any "
                      "alignment) under k ({P}_KEY_BYTES) and npub ({P}_NONCE_BYTES, never twice under one "
                      "key). Returns nothing. ctx holds the key: wipe an abandoned one with {p}_wipe_ctx."],
        "aead_aad": ["Absorbs ad (adlen bytes) of associated data; any number of calls, all before the first "
                     "update. Returns 0; -1 with nothing absorbed once an update has run."],
        "aead_encrypt_update": ["c = the encryption of m (mlen bytes, any length; c distinct from m), "
                                "continuing the message. Returns 0; -1 with nothing written when the "
                                "message would pass 2^38 - 64 bytes (RFC 8439)."],
        "aead_decrypt_update": ["m = the decryption of c (clen bytes), continuing the ciphertext. WARNING: "
                                "m is NOT AUTHENTICATED yet (streaming decryption cannot withhold it): do not "
                                "use any of it until {p}_aead_decrypt_final returns 0, and wipe all of it if "
                                "it returns -1. The one-shot {p}_aead_decrypt, which computes no plaintext "
                                "before the tag verifies, is the safe default. Returns 0; -1 as for "
                                "encrypt_update."],
        "aead_encrypt_final": ["Writes the tag ({P}_TAG_BYTES) of the AD and message absorbed, and wipes ctx. "
                               "Returns nothing."],
        "aead_decrypt_final": ["Checks tag ({P}_TAG_BYTES) against the AD and ciphertext absorbed, in constant "
                               "time (only the verdict is declassified), and wipes ctx either way. Returns 0 "
                               "when it verifies; -1 otherwise: then every byte decrypt_update wrote is "
                               "forged or damaged, and the caller must wipe it and release none of it."],
    },
    "hash": {
        "hash": ["One-shot digest: out ({P}_OUT_BYTES) of in (inlen bytes). Returns 0."],
        "xof": ["One-shot XOF: outlen bytes of output into out from in (inlen bytes). Returns nothing."],
        "cxof": ["One-shot customized XOF: outlen bytes into out from in (inlen bytes) and the customization "
                 "string z (zlen bytes, at most 256: SP 800-232's 2,048 bits). Returns 0; -1 with nothing "
                 "written for a longer z."],
        "init": ["Starts an incremental hash in ctx ({P}_CTX_BYTES, 4-byte aligned). Returns nothing."],
        "cxof_init": ["Starts an incremental customized XOF in ctx ({P}_CTX_BYTES) with z (zlen bytes, at "
                      "most 256). Returns 0; -1 with nothing written for a longer z (ctx is then not "
                      "initialised: do not use it)."],
        "update": ["Absorbs in (inlen bytes; any number of calls, any lengths). Returns nothing."],
        "final": ["Writes the digest ({P}_OUT_BYTES) to out. Returns nothing. ctx holds message-derived state: "
                  "wipe it with {p}_wipe_ctx."],
        "squeeze": ["Writes the next outlen bytes of output (repeatable). Returns nothing. Wipe ctx with "
                    "{p}_wipe_ctx when done."],
    },
    "dh": {
        "x25519": ["shared = X25519(scalar, point) (RFC 7748): scalar ({P}_SCALAR_BYTES, clamped inside), point "
                   "the peer's u-coordinate ({P}_POINT_BYTES), shared {P}_POINT_BYTES, distinct from both. "
                   "Returns 0; -1 when shared is all zeros (a small-order point, RFC 7748 section 6.1: refuse "
                   "the peer's key, as TLS 1.3 and libsodium do), checked in constant time. Wipe scalar and "
                   "shared ({p}_wipe_scalar, {p}_wipe_shared)."],
        "x25519_unchecked": ["RFC 7748 section 5's X25519 alone, as x25519 without the check: an all-zero shared "
                             "(small-order point) is returned silently. Returns nothing. Only for protocols that "
                             "check the result themselves; x25519 is the safe default."],
        "x25519_base": ["public_key = X25519(scalar, 9) ({P}_POINT_BYTES from {P}_SCALAR_BYTES). Returns nothing. "
                        "Wipe the scalar with {p}_wipe_scalar when done."],
        "fe_mul": ["Field multiplication mod 2^255 - 19 on {P}_FE_WORDS-limb elements (for benchmarks and the "
                   "constant-time check). Returns nothing."],
        "fe_sqr": ["Field squaring mod 2^255 - 19 ({P}_FE_WORDS limbs). Returns nothing."],
        "fe_invert": ["Field inversion mod 2^255 - 19 ({P}_FE_WORDS limbs). Returns nothing."],
        "ladder": ["The Montgomery ladder over `bits` scalar bits on the state st (for benchmarks and the "
                   "constant-time check). Returns nothing."],
    },
    "signature": {
        "keygen": ["Derives the key pair from seed ({P}_SEED_BYTES): pk ({P}_PK_BYTES) and sk ({P}_SK_BYTES, the "
                   "form sign takes). Returns 0. Wipe seed and sk ({p}_wipe_seed, {p}_wipe_sk) when done."],
        "sign": ["Writes the signature of msg (msglen bytes) under sk to sig ({P}_SIG_BYTES at most). Returns 0, "
                 "or -1 for a refused key (nothing released). Constant time in sk."],
        "verify": ["Checks sig (siglen bytes) on msg (msglen bytes) under pk ({P}_PK_BYTES). Returns 0 when "
                   "valid, -1 otherwise (wrong length, malformed or small-order key, non-canonical "
                   "encodings, a failed equation)."],
    },
    "kem": {
        "keygen": ["ML-KEM.KeyGen_internal(d, z) (FIPS 203 Algorithm 16): ek ({P}_EK_BYTES) and dk "
                   "({P}_DK_BYTES) from the seeds d and z ({P}_SEED_BYTES each). Returns 0. Wipe dk with "
                   "{p}_wipe_dk when done."],
        "encaps": ["ML-KEM.Encaps_internal(ek, m) (Algorithm 17): ct ({P}_CT_BYTES) and the shared key ss "
                   "({P}_SS_BYTES) from ek and the random m ({P}_SEED_BYTES). Returns 0; -1 with nothing "
                   "written when ek fails the modulus check (section 7.2)."],
        "decaps": ["ML-KEM.Decaps_internal(dk, ct) (Algorithm 18): the shared key ss ({P}_SS_BYTES), with "
                   "implicit rejection (a ciphertext that does not re-encrypt gives J(z | ct)). Returns 0; -1 "
                   "with ss zeroed when dk fails the hash check (section 7.3)."],
    },
    "permutation": {
        "permute": ["Permutes the state ({P}_STATE_BYTES) in place. Returns nothing."],
        "interleave": ["Converts the state in place to this implementation's bit-interleaved layout. Returns nothing."],
        "deinterleave": ["Converts the state in place back to the FIPS 202 layout. Returns nothing."],
    },
    "mpmul": {
        "mul": ["r = a * b: a and b {P}_OPERAND_WORDS little-endian 32-bit limbs, r {P}_PRODUCT_WORDS (not "
                "overlapping a or b; a may equal b). Returns nothing."],
        "mul_n": ["r = a * b on nwords-limb operands (nwords even, 2..64), r 2 * nwords limbs. Returns nothing."],
    },
}

# Nonce rules per AEAD id family (docs/api.md and the headers).
NONCE_RULES = {
    "ascon": "Ascon-AEAD128 (NIST SP 800-232): a 16-byte nonce that never repeats under one key; a counter is "
             "simplest; random 16-byte nonces collide with negligible probability. A repeated "
             "nonce reveals the XOR of the two messages' first blocks and voids the authenticity guarantee.",
    "tinyjambu": "TinyJAMBU: a 12-byte nonce that never repeats under one key. Use a counter: random 96-bit "
                 "nonces are unsafe beyond about 2^32 messages per key (birthday bound). A repeated nonce "
                 "reveals the XOR of the two messages' first blocks and voids the authenticity guarantee; the fixednonce "
                 "functions serve one message per state for this reason.",
    "chachapoly": "ChaCha20-Poly1305 (RFC 8439): a 12-byte nonce that never repeats under one key; use a counter "
                  "(random 96-bit nonces are unsafe beyond about 2^32 messages per key). A repeated nonce "
                  "reveals the XOR of the two plaintexts and the Poly1305 key, which lets an attacker forge tags. "
                  "At most 2^38 - 64 bytes of message (and what size_t holds) per call, else -1.",
}


COMMON_NOTES = [
    ("Reentrancy", "every function is reentrant and may run in several threads or interrupt levels at "
     "once on distinct buffers: no implementation has writable static data (no .data or .bss: the tests "
     "check the exported archives) or heap; all state is in the caller's buffers, tables are read-only. "
     "The exceptions, exported only when named with --impl, are the implementations the catalog marks "
     "`reentrant: false`"),
    ("Constant time", "implementations marked constant time pass `mcucrypt ct` on their board: no "
     "branch, address or variable-latency instruction depends on secrets."),
]


# ---------------------------------------------------------------------------------------- selection

@dataclass
class Unit:
    """One (family, implementation) in the export, with the ids it serves."""
    prim: Primitive
    impl: Implementation
    ids: list[str] = field(default_factory=list)
    reasons: dict[str, dict[str, Any]] = field(default_factory=dict)   # id -> how it was chosen

    @property
    def name(self) -> str:
        return f"{self.prim.name}_{impl_define(self.impl.name)}"


def _expand(prims: list[str], target: str) -> list[str]:
    """Family names ('lea') and ids ('lea128') -> ids available on the target; default: everything."""
    cat = load_catalog()
    if not prims:
        return [i for i in cat.all_ids() if cat.implementations(i, target)]
    ids: list[str] = []
    for p in prims:
        if p in cat.primitives:
            ids += [i for i in cat.primitives[p].instances if cat.implementations(i, target)]
        else:
            cat.by_id(p)
            ids.append(p)
    return list(dict.fromkeys(ids))


def parse_impls(items: list[str] | str | None) -> dict[str, str]:
    """--impl values: NAME (every selected primitive) or PRIM=NAME (that id or family), repeatable.
    Returns {id, family or '*': implementation}."""
    out: dict[str, str] = {}
    for item in [items] if isinstance(items, str) else (items or []):
        key, sep, name = item.rpartition("=")
        key = key if sep else "*"
        if not name or (key in out and out[key] != name):
            raise ExportError(f"--impl {item!r}: give NAME or PRIM=NAME, once per primitive")
        out[key] = name
    return out


def select(target: str, core: Core, prims: list[str], impl: str | list[str] | None,
           allow_variable_time: bool, optimize: str = "speed",
           progress: Callable[[str], None] | None = None) -> tuple[list[Unit], list[str]]:
    """The units to export, and warnings for the user. ``impl``: see parse_impls; ``optimize`` and
    ``progress``: see choose.choose."""
    cat = load_catalog()
    units: dict[tuple[str, str], Unit] = {}
    warnings: list[str] = []
    named = parse_impls(impl)
    for prim_id in _expand(prims, target):
        impl = named.get(prim_id) or named.get(cat.by_id(prim_id).name) or named.get("*")
        if impl is not None:
            im = cat.implementation(prim_id, impl)
            why = core.why_not(im)
            if why:
                raise ExportError(f"{impl} of {prim_id}: {why} (name another --core to export it anyway)")
            reason = {"how": "named with --impl"}
        else:
            # The library promises reentrancy (docs/api.md): implementations with static state only by --impl.
            ch = choose(prim_id, target, core, prefer_ct=not allow_variable_time, reentrant_only=True,
                        optimize=optimize, progress=progress)
            im = ch.impl
            best = BEST_WORD[optimize]
            reason = {"how": f"{best} verified" + ("" if allow_variable_time else " constant-time")
                      + f" on {core.name}", "op": ch.op, "cycles": ch.cycles, "excluded": ch.excluded,
                      "stack_bytes": ch.stack_bytes}
            if ch.ct_fallback:
                reason["how"] = f"{best} verified on {core.name}; NO constant-time implementation exists"
                warnings.append(f"{prim_id} on {core.name}: no implementation claims constant time; "
                                f"exporting {im.name} ({im.description})")
        unit = units.setdefault((im.primitive.name, im.name), Unit(im.primitive, im))
        unit.ids.append(prim_id)
        unit.reasons[prim_id] = reason
    # Two implementations of one id would clash on the generic names.
    return list(units.values()), warnings


BEST_WORD = {"speed": "fastest", "size": "smallest", "balanced": "best speed x size"}


# ------------------------------------------------------------------------------------- size and fit

def unit_sizes(target: str, units: list[Unit], src: Path, sources: list[str], arch: list[str]) -> dict[str, int]:
    """Bytes of flash (code and constant data) each unit adds to a firmware that calls every function it
    exports for the selected ids, as a link with --gc-sections keeps them: the sources compiled as the
    exported Makefile compiles them, linked with every such function kept and nothing else (libc calls
    left unresolved: the firmware's own). "common" is mcu_wipe and mcu_declassify."""
    import tempfile
    t = TOOLS[target]
    out: dict[str, int] = {}
    with tempfile.TemporaryDirectory() as tmp:
        objs: dict[str, list[str]] = {}
        for n, rel in enumerate(sources):
            obj = Path(tmp) / f"{n}.o"
            proc = subprocess.run([t["cc"], *arch, *OPTFLAGS, *CFLAGS, f"-I{src}", "-c", str(src.parent / rel),
                                   "-o", str(obj)], capture_output=True, text=True)
            if proc.returncode:
                raise ExportError(f"compiling {rel} for the size check failed: {proc.stderr.strip()[:500]}")
            owner = next((u.name for u in units if rel.startswith(f"src/{u.name}/")), "common")
            objs.setdefault(owner, []).append(str(obj))

        def linked(name: str, keep: list[str], files: list[str]) -> int:
            elf = Path(tmp) / f"{name}.elf"
            proc = subprocess.run([t["cc"], *arch, "-nostdlib", "-nostartfiles", "-Wl,--gc-sections",
                                   "-Wl,--unresolved-symbols=ignore-all", f"-Wl,-e,{keep[0]}",
                                   *[f"-Wl,--undefined={k}" for k in keep], *files, "-o", str(elf)],
                                  capture_output=True, text=True)
            if proc.returncode:
                raise ExportError(f"linking {name} for the size check failed: {proc.stderr.strip()[:500]}")
            size = subprocess.run([t["size"], "-A", str(elf)], capture_output=True, text=True, check=True).stdout
            return sum(int(v) for sec, v in re.findall(r"^(\.\S+)\s+(\d+)", size, re.M)
                       if sec.startswith((".text", ".data", ".rodata", ".srodata", ".sdata", ".progmem")))

        common = ["mcu_wipe", "mcu_declassify"]
        out["common"] = linked("common", common, objs.get("common", []))
        for u in units:
            keep = [f"mcu_{i}_{impl_define(u.impl.name)}_{op}" for i in u.ids for op in ops_of(u.impl, i)]
            out[u.name] = linked(u.name, keep + common, objs.get(u.name, []) + objs.get("common", [])) - out["common"]
    return out


def _measure_named_stacks(target: str, core: Core, units: list[Unit]) -> None:
    """The main operation's stack (and cycles) on the board for ids whose implementation was named with
    --impl (chosen ones carry it already), for the SRAM check; cached like the choice's figures."""
    from .boards.base import BoardError
    from .choose import main_op
    from .firmware import Firmware
    for u in units:
        for i in u.ids:
            r = u.reasons[i]
            if r.get("stack_bytes") is None:
                try:
                    r["op"], r["cycles"], r["stack_bytes"] = main_op(Firmware(u.impl, i, target, core=core))
                except BoardError as e:     # its buffers alone exceed the part's RAM (ML-DSA on the ATmega128)
                    raise ExportError(f"{i} ({u.impl.name}) does not fit {core.short}: {e}; pick a larger "
                                      f"part with --core or --sram") from None


def check_fit(core: Core, units: list[Unit], code: dict[str, int], flash: int | None, sram: int | None) -> None:
    """Refuses (ExportError: exit 2) a selection whose code exceeds the part's flash, or one of whose main
    operations needs more stack than the part's SRAM, naming what does not fit."""
    flash_of = "--flash" if flash else f"{core.short}'s flash"
    sram_of = "--sram" if sram else f"{core.short}'s SRAM"
    flash = flash or core.flash_bytes
    sram = sram or core.sram_bytes
    total = sum(code.values())
    if flash and total > flash:
        parts = ", ".join(f"{u.prim.name} {u.impl.name} {code.get(u.name, 0):,}" for u in
                          sorted(units, key=lambda u: -code.get(u.name, 0)))
        raise ExportError(f"the selection does not fit {flash:,} bytes of flash ({flash_of}): {total:,} bytes of "
                          f"code ({parts}, common {code.get('common', 0):,}); leave some out, or try --optimize size")
    if sram:
        for u in units:
            for i in u.ids:
                st = u.reasons[i].get("stack_bytes")
                if st and st > sram:
                    raise ExportError(f"{i} ({u.impl.name}) does not fit {sram:,} bytes of SRAM ({sram_of}): "
                                      f"its {u.reasons[i].get('op')} takes {st:,} bytes of stack")


# ---------------------------------------------------------------------------------------- rendering

def _c_proto(proto: Prototype, prim_id: str, impl: str | None) -> str:
    """The C declaration; ``impl`` None writes the name pattern mcu_<id>_<impl>_<op> (for docs/api.md)."""
    params = ", ".join(f"{p.ctype} {p.name}".replace("* ", "*") for p in proto.params) or "void"
    name = proto.symbol(prim_id, impl) if impl else proto.name_template.format(id=prim_id, impl="<impl>")
    return f"{proto.ret} {name}({params})"


def _guard(name: str) -> str:
    return "MCUCRYPT_" + re.sub(r"[^A-Za-z0-9]", "_", name).upper() + "_H"


def config_header(unit: Unit, target: str, extra: list[str] | None = None) -> str:
    """``extra``: lines after MCU_IMPL (the stack-wipe setting, from mcucrypt/stackwipe.py's export_unit)."""
    impl = unit.impl
    lines = [SPDX_C,
             f"/* Generated by `mcucrypt export`: the configuration of {unit.prim.name} {impl.name}. Every source",
             " * of this implementation includes it first, so nothing here can be left out or set differently",
             " * between the C and the assembly. Do not edit: export again. */",
             f"#ifndef {_guard('config_' + unit.name)}", f"#define {_guard('config_' + unit.name)}", "",
             f"#define MCU_IMPL {impl_define(impl.name)}", *(extra or [])]
    for d in impl.defines:
        name, _, value = d.partition("=")
        lines.append(f"#define {name} {value or '1'}")
    if target in ARCH_CHECK and "host" not in impl.targets:
        cond, what = ARCH_CHECK[target]
        lines += ["", f"#if !({cond})", f'#error "{unit.prim.name} {impl.name} is {target} code: compile it with {what}"',
                  "#endif"]
    if target == "rv32" and impl.isa:
        from .cores import rv32_extensions
        for ext in sorted(rv32_extensions(impl.isa) - {"i"}):
            macro = RV32_EXT_MACRO.get(ext)
            if macro:
                lines += [f"#ifndef {macro}",
                          f'#error "{unit.prim.name} {impl.name} needs the {ext} extension: compile with -march={impl.isa}"',
                          "#endif"]
    lines += ["", "/* C sources see their own public header, so a prototype that differs from the definition",
              " * is a compile error. */", "#ifndef __ASSEMBLER__", f'#include "mcucrypt/{unit.name}.h"',
              "#endif", "", "#endif", ""]
    return "\n".join(lines)


def op_doc(prim: Primitive, impl: Implementation, prim_id: str, op: str) -> list[str]:
    """The doc comment of one exported function (OP_DOCS), with this implementation's names filled in."""
    pfx = f"MCU_{prim_id.upper()}_{impl_define(impl.name).upper()}"
    fn = f"mcu_{prim_id}_{impl_define(impl.name)}"
    text = OP_DOCS.get(kind_of(prim, prim_id), {}).get(op)
    if text is None:
        return [f"{op}: see the API reference (docs/api.md)."]
    return [t.format(P=pfx, p=fn) for t in text]


def _comment(text: str, width: int = 100) -> list[str]:
    """A C block comment, wrapped."""
    import textwrap
    body = textwrap.wrap(text, width - 3)
    if len(body) == 1:
        return [f"/* {body[0]} */"]
    return [f"/* {body[0]}"] + [f" * {line}" for line in body[1:]] + [" */"]


def public_header(unit: Unit) -> str:
    impl, prim = unit.impl, unit.prim
    lines = [SPDX_C,
             f"/* {prim.description}: implementation {impl.name}. Generated by `mcucrypt export`.",
             f" * {impl.description}",
             f" * Constant time: {_ct_text(impl, checked=True)}.",
             " * Conventions (byte order, alignment, return codes, lifetimes): API.md beside src/ (docs/api.md). */",
             f"#ifndef {_guard(unit.name)}", f"#define {_guard(unit.name)}", "",
             "#include <stddef.h>", "#include <stdint.h>", '#include "mcucrypt/wipe.h"', "",
             "#ifdef __cplusplus", 'extern "C" {', "#endif"]
    for prim_id in unit.ids:
        pfx = f"MCU_{prim_id.upper()}_{impl_define(impl.name).upper()}"
        lines += ["", f"/* ---- {prim_id} ---- */"]
        for suffix, value, meaning in sizes(prim, impl, prim_id):
            lines.append(f"#define {pfx}_{suffix} {value}   /* {meaning} */")
        if kind_of(prim, prim_id) == "aead" and prim.name in NONCE_RULES:
            lines += _comment("Nonces: " + NONCE_RULES[prim.name])
        for op, proto in ops_of(impl, prim_id).items():
            lines += _comment(" ".join(op_doc(prim, impl, prim_id, op)))
            lines.append(_c_proto(proto, prim_id, impl.name) + ";")
        for helper, ctype, size, what in wipers(prim, impl, prim_id):
            fn = f"mcu_{prim_id}_{impl_define(impl.name)}_{helper}"
            lines.append(f"/* Zeroes {what} ({pfx}_{size} bytes); the compiler cannot remove it. */")
            lines.append(f"static inline void {fn}({ctype} *p) {{ mcu_wipe(p, {pfx}_{size}); }}")
    lines += ["", "#ifdef __cplusplus", "}", "#endif", "#endif", ""]
    return "\n".join(lines)


def umbrella_header(units: list[Unit], target: str, core: Core) -> str:
    lines = [SPDX_C,
             f"/* mcucrypt for {target} ({core.name}: {core.part}). Generated by `mcucrypt export`.",
             " * Includes every exported implementation and gives each primitive id generic names for the one",
             " * chosen: mcu_<id>_<op> = mcu_<id>_<impl>_<op>, MCU_<ID>_<SIZE> = MCU_<ID>_<IMPL>_<SIZE>,",
             " * MCU_HAVE_<ID>, MCU_<ID>_IMPL. */",
             "#ifndef MCUCRYPT_H", "#define MCUCRYPT_H", ""]
    lines += [f'#include "mcucrypt/{u.name}.h"' for u in units]
    for u in units:
        im = impl_define(u.impl.name)
        for prim_id in u.ids:
            up = prim_id.upper()
            lines += ["", f"#define MCU_HAVE_{up} 1", f'#define MCU_{up}_IMPL "{u.impl.name}"',
                      f"#define MCU_{up}_CONSTANT_TIME {1 if u.impl.constant_time else 0}"]
            for suffix, _, _ in sizes(u.prim, u.impl, prim_id):
                lines.append(f"#define MCU_{up}_{suffix} MCU_{up}_{im.upper()}_{suffix}")
            for op in list(ops_of(u.impl, prim_id)) + [w[0] for w in wipers(u.prim, u.impl, prim_id)]:
                lines.append(f"#define mcu_{prim_id}_{op} mcu_{prim_id}_{im}_{op}")
    lines += ["", "#endif", ""]
    return "\n".join(lines)


def _copy_sources(unit: Unit, src_dir: Path) -> list[str]:
    """Copies the implementation's sources (each opened by its configuration include) and every header of
    its family into src/<unit>/, keeping the family's folder layout so relative includes work. Returns
    the sources' paths relative to the export folder."""
    home = unit.prim.directory
    dest = src_dir / unit.name
    # A source of another family (crypto/sha3 compiles crypto/keccak's permutations, `../keccak/...` in
    # META.yml) goes under that family's name inside the unit, beside a copy of that family's headers.
    placed: list[tuple[Path, Path, Path]] = []     # (source, path in the unit, path shown in #line)
    families = {home: Path()}
    for s in unit.impl.sources:
        s = Path(os.path.normpath(s))
        if s.is_relative_to(home):
            placed.append((s, s.relative_to(home), Path(unit.prim.name) / s.relative_to(home)))
        else:
            other = next(d for d in s.parents if (d / "META.yml").is_file())
            families[other] = Path(other.name)
            placed.append((s, Path(other.name) / s.relative_to(other), Path(other.name) / s.relative_to(other)))
    for fam, sub in families.items():
        for h in fam.rglob("*"):
            if h.suffix in (".h", ".inc") and h.is_file():
                (dest / sub / h.relative_to(fam)).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(h, dest / sub / h.relative_to(fam))
    out = []
    for s, rel, shown in placed:
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(f"/* mcucrypt export: {unit.prim.name} {unit.impl.name}; its configuration first */\n"
                          f'#include "mcucrypt/config_{unit.name}.h"\n'
                          f'#line 1 "{shown.as_posix()}"\n' + s.read_text())
        out.append(target.relative_to(src_dir.parent).as_posix())
    return out


def _march(units: list[Unit], target: str) -> list[str]:
    if target != "rv32":
        return []
    from .cores import rv32_extensions
    exts: set[str] = set()
    for u in units:
        exts |= rv32_extensions(u.impl.isa)
    base = "rv32i" + "".join(x for x in "mac" if x in exts)
    extra = sorted(e for e in exts if len(e) > 1)
    return [f"-march={'_'.join([base, *extra])}"]


def _part_arch(target: str, core: Core) -> list[str]:
    """The target's architecture flags, for the core's own part where it names one (AVR: -mmcu)."""
    if target == "avr" and core.mcu:
        return [f"-mmcu={core.mcu}"]
    return list(TOOLS[target]["arch"])


def makefile(target: str, sources: list[str], arch: list[str]) -> str:
    t = TOOLS[target]
    srcs = " \\\n       ".join(sources)
    return f"""{SPDX_HASH}
# Generated by `mcucrypt export`: builds libmcucrypt.a for {target} with nothing but the cross compiler.
#   make                    -> libmcucrypt.a (headers: src/mcucrypt.h and src/mcucrypt/)
#   make OPTFLAGS="-Os -flto"  your firmware's optimisation (default {' '.join(OPTFLAGS)}); with -flto link
#                           your firmware with the same flags (AR is gcc-ar, which indexes LTO objects)
#   make ARCHFLAGS=-mmcu=atmega2560   another part of the same architecture
#   make CC=... AR=...      another compiler of the same architecture
# Link your firmware with -Isrc and libmcucrypt.a (and -Wl,--gc-sections to keep only what you call).
CC = {t['cc']}
AR = {t['ar']}
ARCHFLAGS ?= {' '.join(arch)}
OPTFLAGS = {' '.join(OPTFLAGS)}
CFLAGS = {' '.join(CFLAGS)}
CPPFLAGS = -Isrc

SRCS = {srcs}
OBJS = $(patsubst src/%,build/%.o,$(SRCS))

all: libmcucrypt.a

libmcucrypt.a: $(OBJS)
\trm -f $@
\t$(AR) rcs $@ $(OBJS)

build/%.o: src/%
\t@mkdir -p $(dir $@)
\t$(CC) $(ARCHFLAGS) $(OPTFLAGS) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

clean:
\trm -rf build libmcucrypt.a

.PHONY: all clean
"""


def cmakelists(target: str, sources: list[str], arch: list[str]) -> str:
    srcs = "\n    ".join(sources)
    opts = ";".join(arch)
    return f"""{SPDX_HASH}
# Generated by `mcucrypt export`: the static library `mcucrypt` for {target}.
# In your project: add_subdirectory(path/to/this/folder) and target_link_libraries(app PRIVATE mcucrypt).
# Stand-alone: cmake -S . -B build -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain.cmake && cmake --build build
cmake_minimum_required(VERSION 3.13)
project(mcucrypt_{target} VERSION {VERSION} LANGUAGES C ASM)

set(MCUCRYPT_ARCH_FLAGS "{opts}" CACHE STRING "architecture flags the library is compiled with")
add_library(mcucrypt STATIC
    {srcs}
)
target_include_directories(mcucrypt PUBLIC ${{CMAKE_CURRENT_SOURCE_DIR}}/src)
target_compile_options(mcucrypt PRIVATE ${{MCUCRYPT_ARCH_FLAGS}} {' '.join(f for f in CFLAGS if f != '-std=c99')})
# Your build type's optimisation (Release, MinSizeRel, CMAKE_INTERPROCEDURAL_OPTIMIZATION for LTO), or {' '.join(OPTFLAGS)}.
if(NOT CMAKE_BUILD_TYPE)
  target_compile_options(mcucrypt PRIVATE {' '.join(OPTFLAGS)})
endif()
set_target_properties(mcucrypt PROPERTIES C_STANDARD 99 C_STANDARD_REQUIRED ON C_EXTENSIONS OFF)
"""


def toolchain_cmake(target: str, arch: list[str]) -> str:
    t = TOOLS[target]
    plain_ar = t["cc"].removesuffix("gcc") + "ar"
    return f"""{SPDX_HASH}
# Generated by `mcucrypt export`: a CMake toolchain file for {target} (bare metal, {t['cc']}).
# The tools are looked up on your PATH when CMake configures (nothing here names a folder).
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR {t['processor']})
set(CMAKE_C_COMPILER {t['cc']})
set(CMAKE_CXX_COMPILER {t['cxx']})
set(CMAKE_ASM_COMPILER {t['cc']})
# gcc-ar indexes -flto objects too; plain ar where the toolchain lacks it.
find_program(CMAKE_AR NAMES {t['ar']} {plain_ar} REQUIRED)
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
set(CMAKE_C_FLAGS_INIT "{' '.join(arch)}")
set(CMAKE_CXX_FLAGS_INIT "{' '.join(arch)}")
set(CMAKE_ASM_FLAGS_INIT "{' '.join(arch)}")
"""


PLACEHOLDER_URL = "https://example.invalid/mcucrypt"


def project_url() -> str | None:
    """The checkout's public home: its git remote `origin` when that is an http(s) or GitHub-style URL."""
    try:
        proc = subprocess.run(["git", "-C", str(ROOT), "remote", "get-url", "origin"], capture_output=True,
                              text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    remote = proc.stdout.strip() if proc.returncode == 0 else ""
    m = re.fullmatch(r"git@([\w.-]+):(.+?)(?:\.git)?", remote)
    if m:
        return f"https://{m.group(1)}/{m.group(2)}"
    m = re.fullmatch(r"(https?)://(?:[^@/\s]*@)?(\S+?)(?:\.git)?", remote)    # never a user:token@ part
    return f"{m.group(1)}://{m.group(2)}" if m else None


def library_json(target: str, units: list[Unit], arch: list[str], url: str) -> str:
    doc = {
        "name": f"mcucrypt-{target}", "version": VERSION,
        "description": "Verified, measured cryptography for microcontrollers: "
                       + ", ".join(f"{', '.join(u.ids)} ({u.impl.name})" for u in units),
        "keywords": ["cryptography", "crypto", target, *sorted({u.prim.name for u in units})],
        "license": "MIT", "authors": [{"name": "the mcucrypt authors"}], "homepage": url,
        "frameworks": "*", "platforms": PLATFORMIO[target],
        "headers": "mcucrypt.h",
        # No -mcpu/-mmcu/-march: the board's own flags apply (a platform holds many parts); the
        # configuration headers refuse a compiler for another architecture or without a needed extension.
        "build": {"srcDir": "src", "includeDir": "src", "flags": ["-std=c99"]},
    }
    return json.dumps(doc, indent=2) + "\n"


def library_properties(target: str, units: list[Unit], url: str) -> str:
    return (f"name=mcucrypt-{target}\nversion={VERSION}\nauthor=the mcucrypt authors\n"
            f"maintainer=the mcucrypt authors\n"
            f"sentence=Verified, measured cryptography for {target}: "
            f"{', '.join(i for u in units for i in u.ids)}.\n"
            "paragraph=Exported by mcucrypt: official vectors, differential tests and a constant-time check on a "
            "cycle-accurate board.\ncategory=Data Processing\n"
            f"url={url}\n"
            f"architectures={ARDUINO_ARCH[target]}\nincludes=mcucrypt.h\n")


SKETCH = "SelfTest"
# Debian 12's arduino-core-avr (1.8.7) with its avr-gcc 5.4: the core's WString.cpp uses DECIMAL_DIG, which
# that compiler's <float.h> defines only for C99, not for the core's -std=gnu++11. The compiler's own value
# fills the gap (the Arduino IDE's toolchain, avr-gcc 7.3, needs nothing).
DEBIAN_ARDUINO_FIX = "compiler.cpp.extra_flags=-DDECIMAL_DIG=__DECIMAL_DIG__"


def arduino_builder_command(fqbn: str, sketch: Path, *, libraries: Path, build: Path) -> list[str]:
    """arduino-builder with Debian's packages (arduino-builder, arduino-core-avr): the command the exported
    README gives and tests/test_arduino.py runs."""
    return ["arduino-builder", "-compile", "-hardware", "/usr/share/arduino/hardware",
            "-hardware", "/usr/share/arduino-builder", "-tools", "/usr/share/arduino-builder",
            "-libraries", str(libraries), "-fqbn", fqbn, f"-prefs={DEBIAN_ARDUINO_FIX}",
            "-build-path", str(build), str(sketch)]


def arduino_sketch(out: Path) -> None:
    """examples/SelfTest/: an Arduino sketch (File > Examples in the IDE) that checks the official vectors of
    every exported primitive through the library (the firmware examples' check.c and vectors.h, of which
    only the exported ids are compiled in) and prints the result on Serial at 115200 baud."""
    d = out / "examples" / SKETCH
    d.mkdir(parents=True)
    shutil.copyfile(ROOT / "examples" / "common" / "check.c", d / "check.c")
    shutil.copyfile(ROOT / "examples" / "common" / "vectors.h", d / "vectors.h")
    (d / f"{SKETCH}.ino").write_text(f"""{SPDX_C}
/* mcucrypt self-test: checks the official vectors of every primitive in this library (check.c, vectors.h)
 * and prints one line on Serial at 115200 baud:
 *   {{"summary":"example","result":N}}
 * N is the number of vectors that passed, or 1000 + the number that failed. Then the board stops
 * (interrupts off, sleep). Generated by `mcucrypt export`. */
#include <mcucrypt.h>

extern "C" int mcucrypt_example(void);

void setup()
{{
    Serial.begin(115200);
    int result = mcucrypt_example();
    Serial.print(F("{{\\"summary\\":\\"example\\",\\"result\\":"));
    Serial.print(result);
    Serial.println(F("}}"));
    Serial.flush();
#if defined(__AVR__)
    __asm__ volatile("cli\\n\\tsleep");   /* also how simavr recognises the end of a run */
#endif
}}

void loop()
{{
}}
""")


def readme(target: str, core: Core, units: list[Unit], warnings: list[str], code: dict[str, int]) -> str:
    rows = []
    for u in units:
        for i in u.ids:
            r = u.reasons[i]
            fig = f"{r['cycles']:,} cycles ({r['op']})" if r.get("cycles") else ""
            stack = f"{r['stack_bytes']:,}" if r.get("stack_bytes") is not None else ""
            rows.append(f"| {i} | {u.impl.name} | {'yes' if u.impl.constant_time else 'NO'} | {r['how']} | {fig} | "
                        f"{stack} | {code.get(u.name, 0):,} |")
    warn = "".join(f"\n**Warning:** {w}\n" for w in warnings)
    budget = (f" The part has {core.flash_bytes:,} bytes of flash and {core.sram_bytes:,} of SRAM."
              if core.flash_bytes and core.sram_bytes else "")
    return f"""# mcucrypt for {target} ({core.name})

Generated by `mcucrypt export`. {core.part}.
{warn}
| id | implementation | constant time | chosen | main operation on the board | its stack B | code B (family) |
|---|---|---|---|---|---|---|
{chr(10).join(rows)}

Code: {sum(code.values()):,} bytes of flash in all (each family's sources as the Makefile compiles them,
`mcu_wipe` and `mcu_declassify` {code.get("common", 0):,}; your link's `--gc-sections` drops what you never
call).{budget}

Use: `#include "mcucrypt.h"` (in `src/`), call `mcu_<id>_<op>` (generic names for the implementation
above) or `mcu_<id>_<impl>_<op>`. Sizes: `MCU_<ID>_KEY_BYTES`, `..._RK_BYTES` and so on. Wipe secrets
with `mcu_<id>_wipe_*`. The API reference of this library (prototypes, sizes, byte order, alignment,
return codes, lifetimes, nonce rules): `API.md`; each function's header comment says the same.

Build: `make` (libmcucrypt.a; `make OPTFLAGS="-Os -flto"` for your firmware's flags, linked with the same;
`make ARCHFLAGS=...` for another part of the architecture); CMake: `add_subdirectory(<this folder>)`,
target `mcucrypt`; PlatformIO: `library.json`; Arduino: `library.properties` (avr, armv7m). No
compile-time options: each implementation's configuration is fixed in `src/mcucrypt/config_*.h`. C++:
every header is `extern "C"`; include `mcucrypt.h` as is.
{_arduino_text(target) if target in ARDUINO_ARCH else ""}{_platformio_text(target)}"""


def _arduino_text(target: str) -> str:
    board = "the Uno or the Mega 2560" if target == "avr" else "the Due"
    text = f"""
## Arduino

Copy this folder into your sketchbook's `libraries/` and `#include <mcucrypt.h>`; it needs no flags (the
core's own recipe, `-Os -flto`, builds it). `examples/{SKETCH}` (File > Examples > mcucrypt-{target}) checks
the official vectors of every primitive here on {board} and prints
`{{"summary":"example","result":N}}` on Serial at 115200 baud (N: vectors passed).
"""
    if target != "avr":
        return text + """
The Due's core (arduino:sam) comes from the IDE's Boards Manager (Debian packages only the AVR core).
"""
    cmd = " ".join(arduino_builder_command("arduino:avr:mega:cpu=atmega2560",
                                           Path(f"<libraries>/<this folder>/examples/{SKETCH}/{SKETCH}.ino"),
                                           libraries=Path("<libraries>"), build=Path("<build>")))
    return text + f"""
The selection must fit the board: export for an Uno (ATmega328P: 32,256 bytes of flash for sketches,
2 KiB of SRAM) with `--flash 32256 --sram 2048`, which refuses what cannot fit, and `--optimize size` to
choose the smallest implementations.

With Debian's packages (`apt install arduino-builder arduino-core-avr`) instead of the IDE, for the Mega
2560 (the Uno: `-fqbn arduino:avr:uno`):

    {cmd}

The `-prefs` defines `DECIMAL_DIG`, which Debian's avr-gcc 5.4 lacks in C++ and the core's WString.cpp
uses (the IDE's own toolchain needs nothing).
"""


def _platformio_text(target: str) -> str:
    return f"""
## PlatformIO

`lib_deps = file://<this folder>` in `platformio.ini` (or `pio pkg install --library file://<this folder>`).
`library.json` sets no `-mcpu`/`-mmcu`: your board's own flags apply; platforms: {', '.join(PLATFORMIO[target])}.
Building needs the platform and its toolchain, which PlatformIO downloads on first use.
"""


def export(target: str, out: Path, *, core: str | None = None, prims: list[str] | None = None,
           impl: str | list[str] | None = None, allow_variable_time: bool = False, url: str | None = None,
           optimize: str = "speed", flash: int | None = None, sram: int | None = None, fit_check: bool = True,
           progress: Callable[[str], None] | None = None) -> dict:
    if target not in TOOLS:
        raise ExportError(f"export targets are {', '.join(TOOLS)} (not {target!r})")
    c = get_core(target, core)
    units, warnings = select(target, c, list(prims or []), impl, allow_variable_time, optimize, progress)
    if url is not None and not re.fullmatch(r"https?://[^\s/]+\S*", url):
        raise ExportError(f"--url wants an http(s) address, not {url!r}")
    url = url or project_url()
    if url is None:
        url = PLACEHOLDER_URL
        warnings.append(f"no --url and no http(s) git remote: library.json and library.properties name {url}; "
                        "pass --url with your project's page before publishing to a library registry")
    # Built in a private folder beside `out`, then moved in: `out` never holds half an export, and an
    # earlier export's files (its manifest lists them) are the only ones replaced or removed.
    earlier = _earlier_export_files(out)
    final = out
    out.parent.mkdir(parents=True, exist_ok=True)
    out = Path(tempfile.mkdtemp(prefix=f".{final.name}.export-", dir=out.parent))
    try:
        return _install(_write_export(out, target, c, units, warnings, url, optimize, flash, sram, fit_check),
                        out, final, earlier)
    finally:
        shutil.rmtree(out, ignore_errors=True)


def _write_export(out: Path, target: str, c: Core, units: list[Unit], warnings: list[str], url: str,
                  optimize: str, flash: int | None, sram: int | None, fit_check: bool) -> dict:
    src = out / "src"
    (src / "mcucrypt").mkdir(parents=True)
    shutil.copyfile(ROOT / "include" / "mcucrypt" / "ns.h", src / "mcucrypt" / "ns.h")
    shutil.copyfile(ROOT / "include" / "mcucrypt" / "wipe.h", src / "mcucrypt" / "wipe.h")
    shutil.copyfile(ROOT / "crypto" / "common" / "mcu_wipe.c", src / "mcu_wipe.c")
    # AEAD decryption publishes its verdict through mcu_declassify (the taint checker's declassification
    # point, an identity): the library carries it.
    shutil.copyfile(ROOT / "include" / "mcucrypt" / "declassify.h", src / "mcucrypt" / "declassify.h")
    # AES-GCM and AES-CCM define their instances' entry points through one macro
    shutil.copyfile(ROOT / "include" / "mcucrypt" / "aead_instance.h", src / "mcucrypt" / "aead_instance.h")
    # the branch-free top bit that AES-GCM's GHASH and ML-DSA use (avr-gcc's skip on a secret bit avoided)
    shutil.copyfile(ROOT / "include" / "mcucrypt" / "top_bit.h", src / "mcucrypt" / "top_bit.h")
    shutil.copyfile(ROOT / "crypto" / "common" / "mcu_declassify.c", src / "mcu_declassify.c")
    sources = ["src/mcu_wipe.c", "src/mcu_declassify.c"]
    # Stack hygiene (mcucrypt/stackwipe.py, docs/constant-time.md): per unit the MCU_STACK_WIPE wrappers,
    # on unless the library is built with -DMCU_STACK_WIPE=0.
    shutil.copyfile(ROOT / "include" / "mcucrypt" / "stack_wipe.h", src / "mcucrypt" / "stack_wipe.h")
    stack_wiped = set()
    for u in units:
        wipe_source, wipe_config, wipe_warning = stackwipe.export_unit(u.impl, u.ids, target, u.name, src)
        warnings += [wipe_warning] if wipe_warning else []
        stack_wiped |= {u.name} if wipe_source else set()
        (src / "mcucrypt" / f"config_{u.name}.h").write_text(config_header(u, target, wipe_config))
        (src / "mcucrypt" / f"{u.name}.h").write_text(public_header(u))
        sources += _copy_sources(u, src) + ([wipe_source] if wipe_source else [])
    (src / "mcucrypt.h").write_text(umbrella_header(units, target, c))
    arch = [*_march(units, target), *_part_arch(target, c)]
    code = unit_sizes(target, units, src, sources, arch)
    if fit_check:
        if sram or c.sram_bytes:
            _measure_named_stacks(target, c, units)
        check_fit(c, units, code, flash, sram)
    (out / "Makefile").write_text(makefile(target, sources, arch))
    (out / "CMakeLists.txt").write_text(cmakelists(target, sources, arch))
    (out / "cmake").mkdir()
    (out / "cmake" / "toolchain.cmake").write_text(toolchain_cmake(target, arch))
    (out / "library.json").write_text(library_json(target, units, arch, url))
    if target in ARDUINO_ARCH:
        (out / "library.properties").write_text(library_properties(target, units, url))
        arduino_sketch(out)
    (out / "API.md").write_text(api_markdown(units))
    shutil.copyfile(ROOT / "LICENSE", out / "LICENSE")
    (out / "README.md").write_text(readme(target, c, units, warnings, code))
    manifest = {"target": target, "core": c.name, "arch_flags": arch, "warnings": warnings, "optimize": optimize,
                "code_bytes": sum(code.values()), "flash_bytes": flash or c.flash_bytes,
                "sram_bytes": sram or c.sram_bytes,
                "units": [{"family": u.prim.name, "impl": u.impl.name, "ids": u.ids, "reasons": u.reasons,
                           "code_bytes": code.get(u.name, 0), "constant_time": u.impl.constant_time,
                           "stack_wipe": u.name in stack_wiped}
                          for u in units]}
    return manifest


MANIFEST = "mcucrypt-export.json"


def _earlier_export_files(out: Path) -> set[str]:
    """The files (relative paths) an earlier export into ``out`` wrote, from its manifest: the only files
    a new export may replace or remove. An empty or missing folder has none; a folder with anything else
    in it and no manifest, or a manifest without its file list, is refused."""
    if not out.exists():
        return set()
    if not out.is_dir():
        raise ExportError(f"{out} is not a folder")
    if not any(out.iterdir()):
        return set()
    try:
        listed = json.loads((out / MANIFEST).read_text()).get("files")
    except (OSError, ValueError, AttributeError):
        raise ExportError(f"{out} is not empty and holds no export manifest ({MANIFEST}): refusing to write "
                          f"into it; name an empty or new folder") from None
    if not isinstance(listed, list) or not all(isinstance(f, str) for f in listed):
        raise ExportError(f"{out}: its {MANIFEST} lists no files (an export by an older mcucrypt): remove the "
                          f"folder yourself, or name an empty or new folder") from None
    return {f for f in listed if f and not Path(f).is_absolute() and ".." not in Path(f).parts} | {MANIFEST}


def _install(manifest: dict, stage: Path, out: Path, earlier: set[str]) -> dict:
    """Move the export built in ``stage`` into ``out``: first refuse if it would overwrite a file the
    earlier export did not write, then remove the earlier export's files (and the folders that leaves
    empty), then move the new files in, the manifest (listing them) last."""
    files = sorted(p.relative_to(stage).as_posix() for p in stage.rglob("*") if p.is_file())
    theirs = [f for f in files if f not in earlier and (out / f).exists()]
    if theirs:
        raise ExportError(f"{out / theirs[0]} was not written by an earlier export: refusing to overwrite it")
    manifest["files"] = files + [MANIFEST]
    (stage / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n")
    out.mkdir(parents=True, exist_ok=True)
    for rel in sorted(earlier, key=lambda f: f != MANIFEST):   # the manifest first: a crash leaves no stale list
        (out / rel).unlink(missing_ok=True)
    for rel in sorted({p for f in earlier for p in Path(f).parents if p != Path(".")},
                      key=lambda p: -len(p.parts)):
        try:
            (out / rel).rmdir()           # only if empty: a folder holding the user's files stays
        except OSError:
            pass
    for rel in files + [MANIFEST]:
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        os.replace(stage / rel, out / rel)
    return manifest


# ---------------------------------------------------------------------------------------- docs/api.md

def api_markdown(units: list[Unit] | None = None) -> str:
    """docs/api.md: per family the prototypes, sizes and conventions, from the catalog (the same data the
    exported headers are generated from; tests/test_export.py checks the file is current and that the
    prototypes compile against the sources). With ``units``, the reference of one export (its API.md):
    only its ids and implementations."""
    cat = load_catalog()
    if units is None:
        head = ["Generated by `python -m mcucrypt.export --api-md` from the catalog (crypto/*/META.yml), the same data",
                "`mcucrypt export` writes the public headers from; `tests/test_export.py` fails when this file is stale."]
    else:
        head = ["Generated by `mcucrypt export` for this library (the implementations it holds), from the same",
                "data as its headers; every function's header comment gives its parameters and return value."]
    chosen = None if units is None else {(i, u.impl.name) for u in units for i in u.ids}
    out = ["<!-- SPDX-License-Identifier: MIT -->",
           "# mcucrypt API reference", "", *head,
           "", "Every implementation exports the same API under its own names, `mcu_<id>_<impl>_<op>`",
           "(`-` in the implementation written `_`). An exported library's `mcucrypt.h` also defines the generic",
           "names `mcu_<id>_<op>` and `MCU_<ID>_<SIZE>` for the implementation it holds, and `MCU_<ID>_<IMPL>_<SIZE>`",
           "per implementation. Sizes are in bytes unless they say words.", "",
           "## Common to every primitive", ""]
    static = [f"{prim.name} {im.name}" for prim in cat.primitives.values()
              for im in prim.implementations.values() if not im.reentrant]
    out += [f"- **{k}**: {v}" + (f" ({', '.join(static)})." if k == "Reentrancy" else "") for k, v in COMMON_NOTES]
    out += ["- **Wiping**: `void mcu_wipe(void *p, size_t n)` (`mcucrypt/wipe.h`) zeroes through a volatile pointer",
            "  followed by a compiler barrier, so the stores survive optimisation (also -flto); the headers wrap it",
            "  once per secret-holding type with the right size (`mcu_<id>_<impl>_wipe_rk(rk)` and so on).",
            "- **Stack hygiene**: in an exported library every function that takes a secret zeroes, before it",
            "  returns, the stack its call used (the frames where its routines spilled keys, round keys, states",
            "  and scalars), so nothing of a secret stays below the stack pointer: `MCU_STACK_WIPE`, on by default;",
            "  build the library with `-DMCU_STACK_WIPE=0` to leave it out. It costs 0 to about 2,000 cycles a call",
            "  (docs/constant-time.md, \"Stack hygiene\": how it works, the figures, what it does not cover: scratch",
            "  registers, and the caller's own buffers, which the helpers above wipe). Variable-time implementations",
            "  have no wipe.",
            "- **Configuration**: none needed (`MCU_STACK_WIPE` above is the one option). Defines that fix a",
            "  data layout (`LEA_RK_COMPACT`,",
            "  `TJ_COMPLEMENTED_STATE`, `TJ_ASM_BLOCKS`, `ARIA_KEYSCHEDULE_ONLY`, `COMBA64X`) are fixed per",
            "  implementation in the exported `config_*.h`; building a source without them is a compile error.", ""]
    for prim in cat.primitives.values():
        present = [i for i in prim.instances if chosen is None or any(c[0] == i for c in chosen)]
        if not present:
            continue
        out += [f"## {prim.name}: {prim.description}", ""]
        kinds = list(dict.fromkeys(kind_of(prim, i) for i in present))
        for kind in kinds:      # one group, or one per kind for a suite (Ascon: AEAD, then hash/XOF/CXOF)
            ids = [i for i in present if kind_of(prim, i) == kind]
            if len(kinds) > 1:
                out += [f"### {', '.join(ids)} ({kind})", ""]
            out += _api_group(prim, ids, kind, chosen)
    return "\n".join(out)


def _api_group(prim: Primitive, ids: list[str], kind: str, chosen: set[tuple[str, str]] | None = None) -> list[str]:
    """Prototypes, per-implementation operations, sizes table and conventions of ids of one kind (of the
    (id, implementation) pairs ``chosen``, or all)."""
    out: list[str] = []
    impls = [im for im in prim.implementations.values()
             if any(i in im.ids and (chosen is None or (i, im.name) in chosen) for i in ids)]
    first = impls[0]
    id0 = next(i for i in ids if i in first.ids)
    out += ["```c"]
    ops: dict[str, Prototype] = {}
    for im in impls:
        for i in ids:
            if i in im.ids:
                for op, proto in ops_of(im, i).items():
                    ops.setdefault(op, proto)
    for op, proto in ops.items():
        out.append(_c_proto(proto, "<id>", None) + ";")
    for helper, ctype, size, what in wipers(prim, first, id0):
        out.append(f"static inline void mcu_<id>_<impl>_{helper}({ctype} *p);   /* zeroes {what} */")
    out += ["```", ""]
    have = {im.name: list(dict.fromkeys(op for i in ids if i in im.ids for op in ops_of(im, i))) for im in impls}
    partial = [(n, o) for n, o in have.items() if o != list(ops)]
    if partial:
        out.append("Operations per implementation where not all: " +
                   "; ".join(f"{n}: {', '.join(o)}" for n, o in partial) + ".")
        out.append("")
    # The columns are every size any implementation has (RK_WORDS only where round keys are words): a
    # cell is "-" where an implementation lacks it.
    cols = list(dict.fromkeys(sz for im in impls for i in ids if i in im.ids for sz, _, _ in sizes(prim, im, i)))
    out += ["| id | implementation | " + " | ".join(cols) + " | constant time | real parts it runs on |",
            "|---|---|" + "---|" * len(cols) + "---|---|"]
    for prim_id in ids:
        for im in impls:
            if prim_id not in im.ids or (chosen is not None and (prim_id, im.name) not in chosen):
                continue
            have = {sz: v for sz, v, _ in sizes(prim, im, prim_id)}
            vals = [str(have[c]) if c in have else "-" for c in cols]
            ct = _ct_text(im)
            parts = [c.name for c in CORES.values() if c.real and c.why_not(im) is None]
            notes = [c.why_not(im) for c in CORES.values() if c.real and c.target in im.targets and c.why_not(im)]
            out.append(f"| {prim_id} | {im.name} | " + " | ".join(vals) + f" | {ct} | "
                       + ", ".join(parts + [str(n) for n in notes]) + " |")
    out += ["", *[f"- **{k}**: {v}" for k, v in _kind_notes(prim, impls, ids, kind)], ""]
    return out


# Poly1305 (a MAC with one fixed key length): a one-time key, full-length tags.
ONE_TIME_KEY_MAC_NOTES = [
    ("Byte order", "keys, messages and tags are byte strings as in RFC 8439 section 2.5; the key is KEY_BYTES "
     "long and must authenticate one message only (Poly1305 is a one-time authenticator: derive a fresh key "
     "per message, as ChaCha20-Poly1305 does)."),
    ("Alignment", "byte buffers and `uint8_t *ctx` (CTX_BYTES) may have any alignment."),
    ("Overlap", "keep input and output buffers distinct."),
    ("Return codes", "`verify`: 0 when the TAG_BYTES-byte tag matches, -1 otherwise and for any other taglen; "
     "every byte is compared (constant time) and only the verdict is declassified. The others `void`."),
    ("Context lifetime", "`mac_init`, any number of `mac_update`s, then `mac_final`, which writes the tag and "
     "wipes the context; wipe an abandoned context with `mcu_<id>_wipe_ctx`."),
]


def _kind_notes(prim: Primitive, impls: list[Implementation], ids: list[str], kind: str) -> list[tuple[str, str]]:
    """KIND_NOTES for a group, adjusted to what its implementations have: an AEAD without a state (Ascon)
    gets a key-only lifetime note, and every AEAD its nonce rules and the nsec convention."""
    notes = list(KIND_NOTES[kind])
    if kind == "mac" and ids == ["poly1305"]:
        notes = ONE_TIME_KEY_MAC_NOTES
    if kind == "aead":
        stateful = any("state_bytes" in im.params(i) for im in impls for i in ids if i in im.ids)
        has_ctx = any("ctx_bytes" in im.params(i) for im in impls for i in ids if i in im.ids)
        if not stateful:
            notes = [("Key lifetime", "no key schedule and no state: each call reads the key; wipe your key with "
                      "`mcu_<id>_wipe_key` when done" + (" (the incremental context holds a copy of it: see below)."
                                                         if has_ctx else ".")) if k == "Key/state lifetime"
                     else (k, v) for k, v in notes]
        notes.insert(1, ("nsec", "unused (the NIST LWC API's secret message number, which these AEADs do not "
                         "have): pass NULL."))
        if prim.name in NONCE_RULES:
            notes.insert(0, ("Nonce", NONCE_RULES[prim.name]))
        if has_ctx:
            notes.append(("Incremental API", "`aead_init`, any number of `aead_aad`s, any number of "
                          "`aead_encrypt_update`s (or `aead_decrypt_update`s), then `aead_encrypt_final` (or "
                          "`aead_decrypt_final`), which wipes the context; wipe an abandoned one with "
                          "`mcu_<id>_wipe_ctx`. Streaming decryption writes plaintext before the tag is "
                          "checked: use none of it until `aead_decrypt_final` returns 0, wipe it on -1; the "
                          "one-shot `aead_decrypt` is the safe default."))
    return notes



# ---------------------------------------------------------------------------------------------- CLI

def register(subparsers: Any) -> None:
    s = subparsers.add_parser(
        "export", help="write a self-contained C library folder for one target",
        description="Write a C library folder (sources, headers, Makefile, CMakeLists.txt, library.json, "
                    "Arduino layout for avr/armv7m, LICENSE) for one target. Without --impl each primitive "
                    "gets the fastest implementation that passes its vectors and runs on the core, "
                    "constant-time ones preferred.",
        epilog="examples:\n"
               "  mcucrypt export --target rv32 --prim lea128 --out mylib && make -C mylib\n"
               "  mcucrypt export --target armv7m --core cortex-m3 --prim tinyjambu --prim aes --out lib-m3\n"
               "  mcucrypt export --target avr --prim aes128 --allow-variable-time --out lib-avr\n"
               "  mcucrypt export --target avr --prim lea128 --prim tinyjambu --impl tinyjambu=avr-fast --out lib-uno\n"
               "  mcucrypt export --target avr --prim x25519 --optimize size --flash 32256 --sram 2048 --out lib-uno\n"
               "  mcucrypt export --target avr --prim ascon --url https://github.com/me/fw --out lib-ascon")
    s.add_argument("--target", required=True, choices=list(TOOLS), help="the board family")
    s.add_argument("--core", help="the part (default: the target's real part: e31, cortex-m3, atmega128)")
    s.add_argument("--prim", action="append", metavar="P",
                   help="a primitive id (lea128) or family (lea); repeatable; default: all on the target")
    s.add_argument("--impl", action="append", metavar="[PRIM=]NAME",
                   help="use this implementation for every selected primitive, or with PRIM= for that id or "
                        "family only; repeatable (see `mcucrypt list`)")
    s.add_argument("--out", required=True, help="the folder to write (replaced if it holds an earlier export)")
    s.add_argument("--allow-variable-time", action="store_true",
                   help="let implementations that do not claim constant time compete")
    s.add_argument("--optimize", choices=("speed", "size", "balanced"), default="speed",
                   help="without --impl, choose the fastest implementation (speed, the default), the smallest "
                        "(size: code bytes), or the best product of the two ratios to the best (balanced)")
    s.add_argument("--flash", type=_positive, metavar="BYTES",
                   help="the flash the library may take (default: the part's, for cores that give it: AVR); "
                        "e.g. --flash 32256 --sram 2048 for an Arduino Uno")
    s.add_argument("--sram", type=_positive, metavar="BYTES",
                   help="the SRAM a call's stack may take (default: the part's, for cores that give it: AVR)")
    s.add_argument("--no-fit-check", action="store_true",
                   help="write the library even when all of it would not fit the part (an archive from which each "
                        "firmware links only what it calls: `make lib`)")
    s.add_argument("--url", help="the project page written into library.json and library.properties "
                                 "(default: the checkout's http(s) git remote `origin`)")
    s.set_defaults(func=cmd_export)


def _positive(text: str) -> int:
    try:
        value = int(text, 0)
    except ValueError:
        value = 0
    if value <= 0:
        raise argparse.ArgumentTypeError(f"a positive number of bytes, not {text!r}")
    return value


def cmd_export(opts: argparse.Namespace) -> int:
    # UsageError: the CLI's main turns it into one line and exit status 2 (raising cli.CliError would
    # not work under `python -m mcucrypt.cli`, where that class lives in __main__).
    from .kinds.base import UsageError
    from .records import OutputPathError, check_out_dir
    try:
        check_out_dir(opts.out)     # a file, or a place nothing can be written (/proc), before any build
    except OutputPathError as e:
        raise UsageError(str(e)) from None
    try:
        manifest = export(opts.target, Path(opts.out), core=opts.core, prims=opts.prim or [], impl=opts.impl,
                          allow_variable_time=opts.allow_variable_time, url=opts.url, optimize=opts.optimize,
                          flash=opts.flash, sram=opts.sram, fit_check=not opts.no_fit_check,
                          progress=lambda line: print(f"mcucrypt: measuring {line}", file=sys.stderr, flush=True))
    except (ExportError, ChoiceError, CoreError) as e:
        raise UsageError(str(e)) from None
    for w in manifest["warnings"]:
        print(f"mcucrypt: warning: {w}", file=sys.stderr)
    for u in manifest["units"]:
        for i in u["ids"]:
            r = u["reasons"][i]
            fig = f", {r['cycles']:,} cycles ({r['op']})" if r.get("cycles") else ""
            fig += f", stack {r['stack_bytes']:,} B" if r.get("stack_bytes") is not None else ""
            print(f"{i}: {u['impl']} ({r['how']}{fig})")
            for other, why in (r.get("excluded") or {}).items():
                print(f"    not {other}: {why}")
        print(f"  {u['family']} {u['impl']}: {u['code_bytes']:,} bytes of code")
    budget = f" of {manifest['flash_bytes']:,} bytes of flash" if manifest.get("flash_bytes") else ""
    print(f"code: {manifest['code_bytes']:,} bytes{budget} in all")
    print(f"exported to {opts.out} ({manifest['target']}, core {manifest['core']}): make -C {opts.out}")
    return 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--api-md"]:
        sys.stdout.write(api_markdown())
    else:
        sys.exit("usage: python -m mcucrypt.export --api-md")
