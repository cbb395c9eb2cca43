// SPDX-License-Identifier: MIT
#ifndef MCU_BOARD_H
#define MCU_BOARD_H
#define MCU_BOARD_NAME "lm3s6965"
#include "cortexm.h"
#endif
