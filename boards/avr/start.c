// SPDX-License-Identifier: MIT
/* main for a real ATmega128: the virtual board calls the function under test directly and never runs it.
 * `cli; sleep` is also how simavr recognises a finished program. */
int main(void);
int main(void)
{
    __asm__ volatile("cli\n\tsleep");
    for (;;) {
    }
}
