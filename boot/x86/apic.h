/** @file
 * The local APIC as the PMI route needs it: register offsets and LVT fields, and pure
 * functions that compute what boot/uefi/x86/uefi_pmi.c reads and writes (which access mode the
 * firmware left the APIC in, the MMIO base, the x2APIC MSR of a register, LVT and ICR
 * values). No hardware access here, so the values are host-tested (tests/test_apic.c).
 * Portable: <stdint.h>, <stdbool.h> and boot/ headers only.
 *
 * Sources: [SDM-3A] "Advanced Programmable Interrupt Controller (APIC)" (IA32_APIC_BASE,
 * Local Vector Table, ICR, EOI) and "Extended xAPIC (x2APIC)" (MSR 800H + offset / 16);
 * [APM-2] "Local APIC" and "Extended Interrupt Local Vector Table Registers" (APIC 500H..530H,
 * AMD only).
 */
#ifndef PMUCAL_APIC_H
#define PMUCAL_APIC_H

#include <stdbool.h>
#include <stdint.h>

#include "boot/plat.h"

/* IA32_APIC_BASE. [SDM-3A] Figure "IA32_APIC_BASE MSR"; Linux MSR_IA32_APICBASE_* */
#define MSR_IA32_APICBASE        0x1b
#define MSR_IA32_APICBASE_BSP    BIT_ULL(8)
#define X2APIC_ENABLE            BIT_ULL(10) /* EXTD: x2APIC mode */
#define MSR_IA32_APICBASE_ENABLE BIT_ULL(11) /* xAPIC global enable */
#define MSR_IA32_APICBASE_BASE   (~0xfffull)  /* bits MAXPHYADDR-1:12 */

/* Register offsets in the xAPIC MMIO page. [SDM-3A] Table "Local APIC Register Address Map" */
#define APIC_ID       0x20
#define APIC_LVR      0x30
#define APIC_EOI      0xb0
#define APIC_ICR      0x300 /* low half; x2APIC: one 64-bit MSR */
#define APIC_ICR2     0x310 /* high half, destination in bits 31:24 (xAPIC only) */
#define APIC_LVTPC    0x340 /* LVT Performance Monitoring Counters */
#define APIC_EILVT0   0x500 /* AMD extended LVT n = 0x500 + 0x10 n [APM-2] */
#define APIC_EILVT(n) (APIC_EILVT0 + 0x10u * (n))
#define APIC_EILVT_NR_MAX 4

/* x2APIC: register at offset R is MSR 0x800 + R / 16. [SDM-3A] "x2APIC Register Address
 * Space"; Linux APIC_BASE_MSR */
#define APIC_BASE_MSR 0x800

/* LVT and ICR fields. [SDM-3A] Figure "Local Vector Table (LVT)", "Interrupt Command
 * Register (ICR)"; Linux apicdef.h */
#define APIC_VECTOR_MASK  0xffu
#define APIC_DM_SHIFT     8
#define APIC_DM_MASK      (0x7u << APIC_DM_SHIFT)
#define APIC_DM_FIXED     (0x0u << APIC_DM_SHIFT)
#define APIC_DM_NMI       (0x4u << APIC_DM_SHIFT)
#define APIC_SEND_PENDING (1u << 12)
#define APIC_INT_ASSERT   (1u << 14)
#define APIC_LVT_MASKED   (1u << 16)
#define APIC_DEST_SHIFT   24 /* xAPIC ICR2 destination field */

/* The NMI vector. [SDM-3A] "Exception and Interrupt Reference" */
#define APIC_NMI_VECTOR 2

/** Which interface the firmware left the local APIC in. */
enum apic_mode { APIC_MODE_DISABLED = 0, APIC_MODE_XAPIC, APIC_MODE_X2APIC };

/** How the PMI is delivered. */
enum apic_delivery { APIC_DELIVER_FIXED = 0, APIC_DELIVER_NMI };

/** Mode from an IA32_APIC_BASE value: EN clear -> disabled; EN and EXTD -> x2APIC; EXTD
 *  without EN is an invalid state and reads as disabled. */
enum apic_mode apic_mode_from_base(uint64_t apic_base);

/** Physical base of the xAPIC MMIO page from IA32_APIC_BASE and MAXPHYADDR @p phys_bits
 *  (0 = 36, the architectural minimum). */
uint64_t apic_mmio_base(uint64_t apic_base, unsigned phys_bits);

/** The x2APIC MSR of xAPIC register @p offset (APIC_LVTPC -> 0x834). */
uint32_t apic_x2apic_msr(uint32_t offset);

/** An LVT value: @p how (fixed with @p vector, which must be 16..255, or NMI, vector field
 *  zero as Linux writes it), masked or not. 0 with *ok false for a bad fixed vector. */
uint32_t apic_lvt_value(enum apic_delivery how, uint8_t vector, bool masked, bool *ok);

/** @p lvt with its mask bit cleared (the CPU sets it when it delivers a PMI). */
uint32_t apic_lvt_unmask(uint32_t lvt);

/** The PMI dispatcher's last step, after the handler: write LVT PMC, which the CPU masked
 *  when it delivered the PMI, and the extended entry @p ext (-1: none) back as @p lvt,
 *  unmasked, through @p write (register offset, value). [SDM-3B] "Generating an Interrupt on
 *  Overflow" */
void apic_pmi_rearm(void (*write)(uint32_t off, uint32_t v), uint32_t lvt, int ext);

/** ICR value that sends an NMI to the processor with APIC ID @p dest: for x2APIC the 64-bit
 *  MSR value (destination in 63:32), for xAPIC ICR2 << 32 | ICR (destination in ICR2 31:24,
 *  which holds only 8 bits: IDs above 255 give 0 with *ok false). */
uint64_t apic_icr_self_nmi(enum apic_mode mode, uint32_t dest, bool *ok);

/** Name of @p mode ("xAPIC", "x2APIC", "disabled"); never NULL. */
const char *apic_mode_name(enum apic_mode mode);

#endif
