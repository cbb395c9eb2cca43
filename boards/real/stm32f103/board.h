// SPDX-License-Identifier: MIT
#ifndef MCU_BOARD_H
#define MCU_BOARD_H
#define MCU_BOARD_NAME "stm32f103"
#include "cortexm.h"
#endif
