// SPDX-License-Identifier: MIT
/* ATmega128 board (16 MHz crystal by default; build with F_CPU for another). */
#ifndef MCU_BOARD_H
#define MCU_BOARD_H
#define MCU_BOARD_NAME "atmega128"
#define MCU_PC_BYTES 2
#define MCU_TIFR TIFR
#define MCU_TIMSK TIMSK
#include "avr.h"
#endif
