/** @file
 * The spin-wait hint of the architecture (x86 PAUSE, boot/x86/spin.c), for loops that wait
 * on another CPU's store: it saves power and frees the sibling hardware thread, and on x86
 * avoids the memory-order machine clear when the awaited store lands.
 */
#ifndef PMUCAL_SPIN_H
#define PMUCAL_SPIN_H

/** One spin-wait step. */
void spin_relax(void);

#endif
