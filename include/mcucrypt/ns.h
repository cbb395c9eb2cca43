// SPDX-License-Identifier: MIT
/* Symbol namespacing: every implementation exports the same API under its own names,
 * mcu_<primitive id>_<implementation>_<operation>, e.g. mcu_lea128_ref_encrypt.
 * The build passes -DMCU_IMPL=<implementation with '-' as '_'>, so one source shared by two
 * implementations gets each one's names. Works in C and in preprocessed assembly (.S). */
#ifndef MCUCRYPT_NS_H
#define MCUCRYPT_NS_H

#ifndef MCU_IMPL
#error "MCU_IMPL must be defined by the build (e.g. -DMCU_IMPL=ref)"
#endif

#define MCU_CAT_(a, b, c, d, e, f, g) a##b##c##d##e##f##g
#define MCU_CAT(a, b, c, d, e, f, g) MCU_CAT_(a, b, c, d, e, f, g)

/* MCU_STACK_WIPE nonzero (docs/constant-time.md, "Stack hygiene"): every routine is named
 * mcu_<id>_<impl>_<op>_unwiped, and the public name belongs to a generated wrapper
 * (mcu_stack_wipe_<unit>.S, macros in mcucrypt/stack_wipe.h) that calls it and then zeroes the stack the
 * call used. Calls inside the library go to the routines directly: one wipe per call from the user. */
#if defined(MCU_STACK_WIPE) && MCU_STACK_WIPE
#define MCU_FN_SUFFIX _unwiped
#else
#define MCU_FN_SUFFIX
#endif

/* MCU_FN(lea128, encrypt) -> mcu_lea128_<impl>_encrypt (MCU_STACK_WIPE: mcu_lea128_<impl>_encrypt_unwiped) */
#define MCU_FN(id, op) MCU_CAT(mcu_, id, _, MCU_IMPL, _, op, MCU_FN_SUFFIX)

#endif
