/** @file
 * The AArch64 side of the firmware build, counterpart of boot/uefi/x86/uefi_excl.c: leaving
 * QEMU with a status (Arm semihosting), telling QEMU from hardware, the crash path of the
 * harness's vectors, deliberate faults for the self-test, and the page size the firmware's
 * translation tables give a buffer.
 */
#include "boot/uefi/uefi_priv.h"

#include "boot/arm64/smp.h"
#include "boot/arm64/sysreg.h"
#include "boot/arm64/trap.h"
#include "boot/cpu.h"
#include "lib/fmt.h"

/* Arm semihosting: operation in W0, parameter block address in X1, "HLT #0xF000" in A64.
 * SYS_EXIT_EXTENDED (0x20) with ADP_Stopped_ApplicationExit (0x20026) exits QEMU with the
 * sub-code as its status (QEMU: -semihosting-config enable=on,target=native).
 * [Semihosting] "Semihosting for AArch32 and AArch64", Arm IHI 0087, §5.5 and §6.5. */
#define SEMIHOST_SYS_EXIT_EXTENDED   0x20
#define ADP_STOPPED_APPLICATION_EXIT 0x20026

/* QEMU's ACPI tables say OEM ID "BOCHS " (hw/acpi/aml-build.c ACPI_BUILD_APPNAME6). */
#define QEMU_ACPI_OEM_ID "BOCHS "

bool uefi_under_qemu(void)
{
        struct plat_fw_table ft;
        const uint8_t       *t = NULL;

        if (plat_fw_table(PLAT_FW_ACPI, "FACP", 0, &ft) == ST_OK ||
            plat_fw_table(PLAT_FW_ACPI, "APIC", 0, &ft) == ST_OK)
                t = ft.data;
        /* SDT header: signature 0, length 4, revision 8, checksum 9, OEM ID 10..15 */
        return t && memcmp(t + 10, QEMU_ACPI_OEM_ID, 6) == 0;
}

void uefi_debug_exit(unsigned code)
{
        uint64_t block[2] = { ADP_STOPPED_APPLICATION_EXIT, (uint64_t)code << 1 | 1 };
        struct trap_probe p;

        /* Under the fixup: without semihosting, HLT is UNDEFINED and this returns. */
        trap_probe_begin(&p);
        __asm__ volatile("adr x16, 1f\n\t"
                         "str x16, [%0]\n\t"
                         "mov x0, %1\n\t"
                         "mov x1, %2\n\t"
                         "hlt #0xf000\n\t"
                         "str xzr, [%0]\n"
                         "1:"
                         :
                         : "r"(&trap_fixup_pc), "r"((uint64_t)SEMIHOST_SYS_EXIT_EXTENDED),
                           "r"(block)
                         : "x0", "x1", "x16", "memory");
        trap_probe_end(&p, NULL);
}

static const char *const kind_names[] = {
        [TRAP_KIND_SYNC] = "synchronous exception", [TRAP_KIND_IRQ] = "IRQ",
        [TRAP_KIND_OTHER] = "FIQ/SError/lower-EL exception",
};

/* The harness's vectors met an exception nobody expected: say so on every console and, under
 * QEMU, end the run with the crash status. */
static void trap_fatal(uint64_t kind, const struct trap_frame *f)
{
        char line[192];

        fmt_snprintf(line, sizeof(line),
                     "FATAL: unexpected %s at PC 0x%llx: ESR_EL%u 0x%llx (EC 0x%llx) FAR 0x%llx "
                     "SP 0x%llx\n",
                     kind < ARRAY_SIZE(kind_names) ? kind_names[kind] : "exception",
                     (unsigned long long)f->elr, arm64_current_el(), (unsigned long long)f->esr,
                     (unsigned long long)(f->esr >> ESR_EC_SHIFT & 0x3f),
                     (unsigned long long)f->far, (unsigned long long)f->sp);
        uefi_con_emergency(line);
        if (uefi_under_qemu())
                uefi_debug_exit(PMUCAL_EXIT_CRASHED);
}

bool trap_install(void)
{
        return trap_vectors_install(trap_fatal);
}

status_t cpu_fault_probe(enum cpu_fault_probe kind, unsigned *vector)
{
        struct trap_probe p;
        status_t          st;

        *vector = 0;
        switch (kind) {
        case CPU_PROBE_UD2: /* UDF #0: permanently UNDEFINED, EC 0x00 */
                trap_probe_begin(&p);
                __asm__ volatile("adr x16, 1f\n\t"
                                 "str x16, [%0]\n\t"
                                 "udf #0\n\t"
                                 "str xzr, [%0]\n"
                                 "1:" : : "r"(&trap_fixup_pc) : "x16", "memory");
                st = trap_probe_end(&p, NULL);
                break;
        case CPU_PROBE_GP_NONCANONICAL: { /* load from outside the 48-bit VA space: EC 0x25 */
                volatile uint64_t *bad = (volatile uint64_t *)0x8000000000000000ull;
                uint64_t           v;
                trap_probe_begin(&p);
                __asm__ volatile("adr x16, 1f\n\t"
                                 "str x16, [%1]\n\t"
                                 "ldr %0, [%2]\n\t"
                                 "str xzr, [%1]\n"
                                 "1:" : "=&r"(v) : "r"(&trap_fixup_pc), "r"(bad)
                                 : "x16", "memory");
                (void)v;
                st = trap_probe_end(&p, NULL);
                break;
        }
        case CPU_PROBE_GP_CR4_LA57:
                return ST_UNSUPPORTED; /* x86 only */
        case CPU_PROBE_UNHANDLED_UD2:
                trap_probe_begin(&p);
                __asm__ volatile("udf #1" ::: "memory");
                return trap_probe_end(&p, NULL);
        default:
                return ST_BAD_ARG;
        }
        if (st == ST_FAULT)
                *vector = (unsigned)(trap_fault_esr >> ESR_EC_SHIFT & 0x3f);
        return st == ST_FAULT ? ST_OK : st == ST_OK ? ST_FAULT : st;
}

/* The translation tables of the firmware: TTBR0_ELx with the granule and size TCR_ELx.TG0 /
 * T0SZ give, x = the level the application runs at (at EL2 TCR_EL2 has TG0 [15:14] and T0SZ
 * [5:0] where TCR_EL1 has them, with HCR_EL2.E2H or without; TCR_EL1 is not the firmware's
 * there and is never read); a block descriptor (bits [1:0] = 01) at level 1 maps 1 GiB, at
 * level 2 2 MiB with the 4 KiB granule. [ARM-ARM] D8.3 "Translation table descriptor
 * formats", D23.2 TCR_EL2. Anything but the 4 KiB granule is reported as 4 KiB pages. */
enum plat_page_kind uefi_mapped_page_kind(uint64_t va)
{
        uint64_t tcr = EL_REG_READ(tcr), ttbr = EL_REG_READ(ttbr0);
        unsigned tg0 = tcr >> 14 & 3, t0sz = tcr & 0x3f;
        const uint64_t addr_mask = 0x0000fffffffff000ull;

        if (tg0 != 0 || t0sz < 16 || t0sz > 39)
                return PLAT_PAGE_4K;
        unsigned va_bits = 64 - t0sz;
        int      level   = 4 - (int)((va_bits - 12 + 8) / 9); /* first level walked */
        const uint64_t *table = (const uint64_t *)(uintptr_t)(ttbr & addr_mask);
        for (; level <= 3; level++) {
                uint64_t d = table[(va >> (39 - 9 * level)) & 511];
                if (!(d & 1))
                        return PLAT_PAGE_4K;
                if ((d & 3) == 1)
                        return level == 1 ? PLAT_PAGE_1G : level == 2 ? PLAT_PAGE_2M
                                                                     : PLAT_PAGE_4K;
                if (level == 3)
                        return PLAT_PAGE_4K;
                table = (const uint64_t *)(uintptr_t)(d & addr_mask);
        }
        return PLAT_PAGE_4K;
}

status_t cpu_page_tables_load(uint64_t root_pa, uint64_t *saved)
{
        (void)root_pa;
        *saved = 0;
        return ST_UNSUPPORTED; /* the harness's own tables are built for x86-64 only */
}

void cpu_page_tables_restore(uint64_t saved)
{
        (void)saved;
}

/* This CPU's ID as MP services and the MADT GICC entries name it: MPIDR_EL1's affinity
 * fields packed Aff3.Aff2.Aff1.Aff0. */
uint32_t uefi_own_cpu_id(void)
{
        uint64_t m = SYSREG_READ(mpidr_el1);
        return (uint32_t)((m >> 32 & 0xff) << 24 | (m & 0xffffff));
}

/* The harness's vectors are per window and per CPU (trap_probe_begin reads this CPU's
 * VBAR_EL1), so an application processor needs nothing installed for the harness's call. */
void uefi_ap_enter(uint64_t saved[2])
{
        saved[0] = saved[1] = 0;
}

void uefi_ap_leave(const uint64_t saved[2])
{
        (void)saved;
}

/* AAVMF has no MP services: the harness starts the processors with PSCI (boot/arm64/smp.h). */
unsigned uefi_own_mp_init(void)
{
        const char *why = NULL;

        return smp_init(&why) == ST_OK ? smp_cpu_count() : 0;
}

const char *uefi_own_mp_method(void)
{
        return smp_method();
}

status_t uefi_own_mp_describe(unsigned idx, struct plat_cpu *out)
{
        return smp_cpu_describe(idx, out);
}

status_t uefi_own_mp_start(unsigned idx, void (*fn)(void *arg), void *arg)
{
        return smp_cpu_start(idx, fn, arg);
}

status_t uefi_own_mp_join(unsigned idx, uint32_t timeout_us)
{
        return smp_cpu_join(idx, timeout_us);
}
