/** @file
 * Exclusive control of the machine for the x86-64 firmware build (boot/uefi/arm64/uefi_arm64.c is
 * the AArch64 counterpart), with the x86-64 page tables: measurement windows at
 * TPL_HIGH_LEVEL with interrupts masked, the harness's own #UD/#GP handlers (boot/x86/trap.h),
 * deliberate faults for the self-test, timers, and leaving through QEMU's debug-exit port.
 */
#include "boot/uefi/uefi_priv.h"

#include "boot/x86/msr.h"
#include "boot/x86/trap.h"

#include "boot/acpi.h"
#include "boot/cpu.h"
#include "boot/plat.h"
#include "lib/fmt.h"

struct idt_gate {
        uint16_t offset_lo;
        uint16_t selector;
        uint8_t  ist;
        uint8_t  type_attr;
        uint16_t offset_mid;
        uint32_t offset_hi;
        uint32_t reserved;
} __attribute__((packed));

struct idtr {
        uint16_t limit;
        uint64_t base;
} __attribute__((packed));

#define VEC_UD          6
#define VEC_GP          13
#define GATE_INTERRUPT  0x8e /* present, DPL 0, 64-bit interrupt gate: IF cleared on entry */
#define IDT_ENTRIES     256

extern void trap_ud_entry(void) TRAP_HIDDEN;
extern void trap_gp_entry(void) TRAP_HIDDEN;
extern uint64_t trap_orig_ud TRAP_HIDDEN;
extern uint64_t trap_orig_gp TRAP_HIDDEN;

static struct idtr      firmware_idtr;
static struct idtr      our_idtr;
/* The whole IDT a vector can index, in the image's data: installing the handlers allocates
 * nothing. */
static struct idt_gate  our_idt[IDT_ENTRIES] __attribute__((aligned(16)));
static bool             active;

static uint64_t gate_offset(const struct idt_gate *g)
{
        return g->offset_lo | (uint64_t)g->offset_mid << 16 | (uint64_t)g->offset_hi << 32;
}

/* Written as two 8-byte stores, high half first, so that an NMI arriving meanwhile sees
 * either the old gate or the new one: under UEFI both handlers sit below 4 GiB, so the
 * high half does not even change, and the low half is one atomic store. */
static void store_gate(struct idt_gate *g, const struct idt_gate *n)
{
        uint64_t half[2];

        _Static_assert(sizeof(*n) == sizeof(half), "a 64-bit IDT gate is 16 bytes");
        memcpy(half, n, sizeof(half));
        ((volatile uint64_t *)g)[1] = half[1];
        ((volatile uint64_t *)g)[0] = half[0];
}

static void set_gate(struct idt_gate *g, void (*fn)(void), uint16_t cs)
{
        uint64_t        a = (uint64_t)(uintptr_t)fn;
        struct idt_gate n = {
                .offset_lo  = (uint16_t)a,
                .selector   = cs,
                .ist        = 0,
                .type_attr  = GATE_INTERRUPT,
                .offset_mid = (uint16_t)(a >> 16),
                .offset_hi  = (uint32_t)(a >> 32),
                .reserved   = 0,
        };
        store_gate(g, &n);
}

bool trap_install(void)
{
        uint16_t cs;

        if (active)
                return true;
        __asm__ volatile("sidt %0" : "=m"(firmware_idtr));
        __asm__ volatile("mov %%cs, %0" : "=r"(cs));
        size_t bytes = sizeof(our_idt);
        size_t have = (size_t)firmware_idtr.limit + 1;
        memcpy(our_idt, (void *)(uintptr_t)firmware_idtr.base, have < bytes ? have : bytes);
        trap_orig_ud = gate_offset(&our_idt[VEC_UD]);
        trap_orig_gp = gate_offset(&our_idt[VEC_GP]);
        set_gate(&our_idt[VEC_UD], trap_ud_entry, cs);
        set_gate(&our_idt[VEC_GP], trap_gp_entry, cs);
        our_idtr = (struct idtr){ .limit = (uint16_t)(bytes - 1), .base = (uintptr_t)our_idt };
        trap_cpus_reset();
        __asm__ volatile("lidt %0" : : "m"(our_idtr) : "memory");
        active = true;
        return true;
}

bool trap_set_gate(unsigned vector, void (*entry)(void))
{
        uint16_t cs;

        if (!active || vector >= IDT_ENTRIES || !entry)
                return false;
        __asm__ volatile("mov %%cs, %0" : "=r"(cs));
        set_gate(&our_idt[vector], entry, cs);
        return true;
}

void trap_restore_gate(unsigned vector)
{
        const struct idt_gate *fw = (const struct idt_gate *)(uintptr_t)firmware_idtr.base;

        if (!active || vector >= IDT_ENTRIES)
                return;
        if ((vector + 1) * sizeof(struct idt_gate) <= (size_t)firmware_idtr.limit + 1)
                store_gate(&our_idt[vector], &fw[vector]);
        else
                memset(&our_idt[vector], 0, sizeof(our_idt[vector]));
}

void trap_load_on_this_cpu(void)
{
        if (active)
                __asm__ volatile("lidt %0" : : "m"(our_idtr) : "memory");
}

void trap_restore(void)
{
        if (!active)
                return;
        __asm__ volatile("lidt %0" : : "m"(firmware_idtr) : "memory");
        active = false;
}

bool trap_active(void)
{
        return active;
}

void trap_unexpected(uint64_t vector, const uint64_t *frame)
{
        char           line[160];
        const uint64_t *f = vector == VEC_GP ? frame + 1 : frame; /* skip the error code */

        char err[32] = "";
        if (vector == VEC_GP)
                fmt_snprintf(err, sizeof(err), " error 0x%llx", (unsigned long long)frame[0]);
        fmt_snprintf(line, sizeof(line),
                     "\nFATAL: unexpected %s at RIP 0x%llx (CS 0x%llx RFLAGS 0x%llx RSP 0x%llx%s)"
                     " - pmucal crashed\n",
                     vector == VEC_GP ? "#GP" : "#UD", (unsigned long long)f[0],
                     (unsigned long long)f[1], (unsigned long long)f[2],
                     (unsigned long long)f[3], err);
        uefi_con_emergency(line);
        if (uefi_under_qemu())
                uefi_debug_exit(PMUCAL_EXIT_CRASHED);
        /* On hardware the firmware's handler takes over (it dumps registers and halts). */
}

status_t cpu_fault_probe(enum cpu_fault_probe kind, unsigned *vector)
{
        uint64_t         cr4;
        struct trap_cpu *c;

        *vector = 0;
        if (!active || !(c = trap_cpu_self()))
                return ST_UNSUPPORTED;
        c->vector = 0;
        switch (kind) {
        case CPU_PROBE_UD2:
                __asm__ volatile("leaq 1f(%%rip), %%r11\n\t"
                                 "movq %%r11, %[fix]\n\t"
                                 "ud2\n"
                                 "1:\n\t"
                                 "movq $0, %[fix]"
                                 : [fix] "=m"(c->fixup_rip)
                                 :
                                 : "r11", "memory");
                break;
        case CPU_PROBE_GP_NONCANONICAL: {
                uint64_t v = 0x8000000000000000ull;
                __asm__ volatile("leaq 1f(%%rip), %%r11\n\t"
                                 "movq %%r11, %[fix]\n\t"
                                 "movq (%[p]), %[p]\n"
                                 "1:\n\t"
                                 "movq $0, %[fix]"
                                 : [fix] "=m"(c->fixup_rip), [p] "+r"(v)
                                 :
                                 : "r11", "memory");
                break;
        }
        case CPU_PROBE_GP_CR4_LA57: {
                /* Only where the CPU has LA57 (CPUID.(EAX=07H,ECX=0):ECX[16]): then the #GP for
                 * changing it in IA-32e mode is architectural. Without LA57 the bit is merely
                 * reserved, and QEMU 7.2 TCG accepts the write and hangs. */
                struct cpuid_regs r;
                cpuid_raw(7, 0, &r);
                if (!(r.ecx & (1u << 16)))
                        return ST_UNSUPPORTED;
                /* Changing CR4.LA57 (bit 12) while in IA-32e mode raises #GP, and so does
                 * setting it where 5-level paging does not exist (reserved bit), so the
                 * write never takes effect. [SDM-2B] MOV to/from control registers. (A high
                 * reserved bit is not used: QEMU 7.2 TCG accepts it without #GP and hangs.) */
                __asm__ volatile("mov %%cr4, %0" : "=r"(cr4));
                uint64_t bad = cr4 ^ BIT_ULL(12);
                __asm__ volatile("leaq 1f(%%rip), %%r11\n\t"
                                 "movq %%r11, %[fix]\n\t"
                                 "mov %[v], %%cr4\n"
                                 "1:\n\t"
                                 "movq $0, %[fix]"
                                 : [fix] "=m"(c->fixup_rip)
                                 : [v] "r"(bad)
                                 : "r11", "memory");
                if (!c->vector) /* it did not fault: put CR4 back at once */
                        __asm__ volatile("mov %0, %%cr4" : : "r"(cr4) : "memory");
                break;
        }
        case CPU_PROBE_UNHANDLED_UD2:
                __asm__ volatile("ud2" ::: "memory");
                break;
        default:
                return ST_BAD_ARG;
        }
        *vector = c->vector;
        return c->vector ? ST_OK : ST_FAULT;
}

/* On an application processor boot services are out of bounds ([PI-1.8] Vol. 2 §13.4: an AP
 * procedure may not call them), so a window there only clears IF; the saved value carries
 * AP_SAVED and the old IF instead of a TPL. */
#define AP_SAVED  BIT_ULL(63)
#define RFLAGS_IF BIT_ULL(9)

bool cpu_irq_disable(uint64_t *saved)
{
        if (uefi_on_ap()) {
                uint64_t rflags;
                __asm__ volatile("pushfq\n\tpopq %0\n\tcli" : "=r"(rflags) : : "memory");
                *saved = AP_SAVED | (rflags & RFLAGS_IF);
                return true;
        }
        *saved = uefi_call_wrapper(BS->RaiseTPL, 1, TPL_HIGH_LEVEL);
        __asm__ volatile("cli" ::: "memory");
        return true;
}

void cpu_irq_restore(uint64_t saved)
{
        if (saved & AP_SAVED) {
                if (saved & RFLAGS_IF)
                        __asm__ volatile("sti" ::: "memory");
                return;
        }
        uefi_call_wrapper(BS->RestoreTPL, 1, (EFI_TPL)saved);
}

/* QEMU: the TCG signature, or KVM's with ACPI tables QEMU built. KVM alone is not QEMU:
 * Firecracker, cloud-hypervisor and crosvm report "KVMKVMKVM" too and have no
 * isa-debug-exit at port 0xf4, where the write could reach a real device. */
bool uefi_under_qemu(void)
{
        struct cpuid_regs    r;
        struct acpi_header   h;
        struct plat_fw_table facp;

        cpuid_raw(1, 0, &r);
        if (!(r.ecx & (1u << 31))) /* CPUID.01H:ECX[31]: running under a hypervisor */
                return false;
        cpuid_raw(0x40000000, 0, &r);
        char v[13];
        memcpy(v, &r.ebx, 4);
        memcpy(v + 4, &r.ecx, 4);
        memcpy(v + 8, &r.edx, 4);
        v[12] = 0;
        if (!memcmp(v, "TCGTCGTCGTCG", 12))
                return true;
        if (memcmp(v, "KVMKVMKVM", 9))
                return false;
        if (plat_fw_table(PLAT_FW_ACPI, "FACP", 0, &facp) != ST_OK)
                return false;
        return acpi_check_header(facp.data, facp.len, "FACP", 0, &h, NULL) == ST_OK &&
               acpi_built_by_qemu(&h);
}

void uefi_debug_exit(unsigned code)
{
        /* QEMU -device isa-debug-exit,iobase=0xf4,iosize=0x04: exits with (code << 1) | 1. */
        __asm__ volatile("outl %0, %1" : : "a"(code), "Nd"((uint16_t)0xf4));
}

/* The page size the live page tables (identity-mapped under UEFI) use for va. [SDM-3A]
 * "4-Level Paging": PS (bit 7) in a PDPTE maps 1 GiB, in a PDE 2 MiB. */
enum plat_page_kind uefi_mapped_page_kind(uint64_t va)
{
        uint64_t cr3;
        __asm__ volatile("mov %%cr3, %0" : "=r"(cr3));
        const uint64_t  addr_mask = 0x000ffffffffff000ull;
        const uint64_t *pml4      = (const uint64_t *)(cr3 & addr_mask);
        uint64_t        e         = pml4[(va >> 39) & 511];

        if (!(e & 1))
                return PLAT_PAGE_4K;
        e = ((const uint64_t *)(e & addr_mask))[(va >> 30) & 511];
        if ((e & 1) && (e & BIT_ULL(7)))
                return PLAT_PAGE_1G;
        if (!(e & 1))
                return PLAT_PAGE_4K;
        e = ((const uint64_t *)(e & addr_mask))[(va >> 21) & 511];
        if ((e & 1) && (e & BIT_ULL(7)))
                return PLAT_PAGE_2M;
        return PLAT_PAGE_4K;
}

status_t cpu_page_tables_load(uint64_t root_pa, uint64_t *saved)
{
        __asm__ volatile("mov %%cr3, %0" : "=r"(*saved));
        __asm__ volatile("mov %0, %%cr3" : : "r"(root_pa) : "memory");
        return ST_OK;
}

void cpu_page_tables_restore(uint64_t saved)
{
        __asm__ volatile("mov %0, %%cr3" : : "r"(saved) : "memory");
}

/* This CPU's APIC ID as MP services gives it: the ID the per-processor fault fixups use
 * (x2APIC ID of CPUID 0xB, else the initial APIC ID of CPUID 1; boot/x86/trap_self.c). */
uint32_t uefi_own_cpu_id(void)
{
        return trap_self_id();
}

void uefi_ap_enter(uint64_t saved[2])
{
        struct idtr idtr;

        __asm__ volatile("sidt %0" : "=m"(idtr));
        saved[0] = idtr.limit;
        saved[1] = idtr.base;
        trap_load_on_this_cpu();
}

void uefi_ap_leave(const uint64_t saved[2])
{
        struct idtr idtr = { .limit = (uint16_t)saved[0], .base = saved[1] };

        __asm__ volatile("lidt %0" : : "m"(idtr) : "memory");
}

/* x86-64 processors are started by the firmware's MP services only (INIT-SIPI-SIPI by the
 * harness would fight the firmware for them): without the protocol the BSP runs alone. */
unsigned uefi_own_mp_init(void)
{
        return 0;
}

const char *uefi_own_mp_method(void)
{
        return NULL;
}

status_t uefi_own_mp_describe(unsigned idx, struct plat_cpu *out)
{
        (void)idx;
        (void)out;
        return ST_UNSUPPORTED;
}

status_t uefi_own_mp_start(unsigned idx, void (*fn)(void *arg), void *arg)
{
        (void)idx;
        (void)fn;
        (void)arg;
        return ST_UNSUPPORTED;
}

status_t uefi_own_mp_join(unsigned idx, uint32_t timeout_us)
{
        (void)idx;
        (void)timeout_us;
        return ST_UNSUPPORTED;
}
