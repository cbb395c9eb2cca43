// SPDX-License-Identifier: MIT
/* Arduino Mega 2560 (ATmega2560, 16 MHz). Its 3-byte program counter makes CALL, ICALL, RCALL, RET and
 * RETI one cycle longer than on the ATmega128, and interrupt response 5 cycles instead of 4. */
#ifndef MCU_BOARD_H
#define MCU_BOARD_H
#define MCU_BOARD_NAME "mega2560"
#define MCU_PC_BYTES 3
#define MCU_TIFR TIFR1
#define MCU_TIMSK TIMSK1
#include "avr.h"
#endif
