/** @file
 * The performance-monitoring interrupt route of the firmware build: cpu_pmi_enable /
 * cpu_pmi_disable / cpu_pmi_selftest (boot/cpu.h).
 *
 * Delivery as NMI, not as a fixed interrupt. Measurement windows run at TPL_HIGH_LEVEL with
 * IF = 0 (cpu_irq_disable), because the firmware's timer tick (OVMF: the 8254 through the
 * 8259 at vectors 0x68..0x77, edk2 OvmfPkg 8259InterruptControllerDxe; on other firmware a
 * local APIC timer vector) must not run inside them. A fixed-delivery PMI would stay pending
 * for the whole window and arrive after it, with a RIP that says nothing. Running sampling
 * windows with IF = 1 would mean masking every other interrupt source one by one behind the
 * firmware's back. An NMI is taken with IF = 0, at the next instruction boundary, so sampling
 * windows keep exactly the same masking as counting windows; Linux routes LVT PMC to NMI for
 * the same reason (arch/x86/events/core.c, APIC_DM_NMI). The vector field is ignored for NMI
 * delivery, so there is no firmware vector to collide with: only IDT vector 2 is taken over,
 * in the harness's own IDT, and put back by cpu_pmi_disable. No EOI is sent: the EOI is for
 * fixed interrupts only ([SDM-3A] "Signaling Interrupt Servicing Completion"). The CPU masks
 * LVT PMC when it delivers a PMI ([SDM-3B] "Generating an Interrupt on Overflow"), so the
 * dispatcher writes the unmasked value back after the handler.
 *
 * BSP only: the APs keep the firmware's IDT. One route at a time.
 */
#include "boot/uefi/uefi_priv.h"
#include "boot/cpu.h"

#include "boot/x86/apic.h"
#include "boot/x86/trap.h"

#include "boot/x86/msr.h"

/* AMD: APIC version register bit 31 says the extended register space exists, and the
 * Extended APIC Feature register (0x400) bits 23:16 count the extended LVT entries.
 * [APM-2] "APIC Version Register", "Extended APIC Feature Register" */
#define APIC_LVR_EXT_SPACE  BIT_ULL(31)
#define APIC_EFEAT          0x400
#define APIC_EFEAT_XLC(v)   (((v) >> 16) & 0xffu)
#define APIC_X2APIC_ID_MSR  0x802
#define CPUID_1_EDX_APIC    (1u << 9) /* CPUID.01H:EDX[9] on-chip APIC */
#define SELFTEST_SPINS      50000000ull

extern void pmi_nmi_entry(void) TRAP_HIDDEN;
void pmi_dispatch(const uint64_t *frame) TRAP_HIDDEN;

static struct {
        volatile bool      enabled;
        enum apic_mode     mode;
        volatile uint32_t *mmio;
        uint32_t           lvt;          /* what LVT PMC (and the extended entry) get */
        uint32_t           saved_lvtpc, saved_eilvt;
        int                ext;          /* extended LVT offset routed, or -1 */
        cpu_pmi_fn        fn;
        void              *ctx;
        volatile uint64_t  n_nmi;
} pmi = { .ext = -1 };

/* Plain accessors: every register used here was proven by cpu_pmi_enable. */
static uint32_t apic_read(uint32_t off)
{
        if (pmi.mode == APIC_MODE_X2APIC)
                return (uint32_t)rdmsr(apic_x2apic_msr(off));
        return pmi.mmio[off / 4];
}

static void apic_write(uint32_t off, uint32_t v)
{
        if (pmi.mode == APIC_MODE_X2APIC)
                wrmsr(apic_x2apic_msr(off), v);
        else
                pmi.mmio[off / 4] = v;
}

void pmi_dispatch(const uint64_t *frame)
{
        /* The NMI may have landed between a *_safe accessor arming its fixup and the
         * instruction it guards; the handler's own accessors must not lose that. */
        struct trap_cpu *c   = trap_cpu_find();
        uint64_t         fix = c ? c->fixup_rip : 0;
        uint32_t         vec = c ? c->vector : 0;

        if (c)
                c->fixup_rip = 0;
        pmi.n_nmi++;
        if (pmi.fn) {
                struct cpu_pmi_frame f = { .rip = frame[0], .cs = frame[1], .rflags = frame[2],
                                            .rsp = frame[3] };
                pmi.fn(&f, pmi.ctx);
        }
        if (pmi.enabled)
                apic_pmi_rearm(apic_write, pmi.lvt, pmi.ext);
        if (c) {
                c->vector    = vec;
                c->fixup_rip = fix;
        }
}

static uint64_t irq_save(void)
{
        uint64_t f;
        __asm__ volatile("pushfq; popq %0; cli" : "=r"(f) : : "memory");
        return f;
}

static void irq_put(uint64_t f)
{
        if (f & BIT_ULL(9)) /* RFLAGS.IF */
                __asm__ volatile("sti" ::: "memory");
}

/* Check that extended LVT entry @p n exists in the current mode. */
static status_t ext_lvt_ok(unsigned n)
{
        uint64_t v;

        if (pmi.mode == APIC_MODE_X2APIC) /* MSR 0x850 + n: probe, some parts lack it */
                return rdmsr_safe(apic_x2apic_msr(APIC_EILVT(n)), &v) == ST_OK ? ST_OK
                                                                                : ST_UNSUPPORTED;
        if (!(apic_read(APIC_LVR) & APIC_LVR_EXT_SPACE))
                return ST_UNSUPPORTED;
        return n < APIC_EFEAT_XLC(apic_read(APIC_EFEAT)) ? ST_OK : ST_UNSUPPORTED;
}

status_t cpu_pmi_enable(cpu_pmi_fn fn, void *ctx, int ext_lvt_offset)
{
        struct cpuid_regs r;
        uint64_t          base, v;
        bool              ok;
        status_t          st;

        if (!fn || ext_lvt_offset >= APIC_EILVT_NR_MAX || pmi.enabled)
                return ST_BAD_ARG;
        if (!trap_active())
                return ST_UNSUPPORTED;
        cpuid_raw(1, 0, &r);
        if (!(r.edx & CPUID_1_EDX_APIC) || rdmsr_safe(MSR_IA32_APICBASE, &base) != ST_OK)
                return ST_UNSUPPORTED;
        if (!(base & MSR_IA32_APICBASE_BSP))
                return ST_UNSUPPORTED;
        pmi.mode = apic_mode_from_base(base);
        if (pmi.mode == APIC_MODE_DISABLED)
                return ST_UNSUPPORTED;
        if (pmi.mode == APIC_MODE_XAPIC) {
                unsigned phys_bits = 0;
                cpuid_raw(0x80000000, 0, &r);
                if (r.eax >= 0x80000008) {
                        cpuid_raw(0x80000008, 0, &r);
                        phys_bits = r.eax & 0xff;
                }
                pmi.mmio = (volatile uint32_t *)(uintptr_t)apic_mmio_base(base, phys_bits);
        } else if (rdmsr_safe(apic_x2apic_msr(APIC_LVTPC), &v) != ST_OK) {
                return ST_UNSUPPORTED;
        }
        if (ext_lvt_offset >= 0 && (st = ext_lvt_ok((unsigned)ext_lvt_offset)) != ST_OK)
                return st;
        pmi.lvt = apic_lvt_value(APIC_DELIVER_NMI, 0, false, &ok);

        uint64_t flags = irq_save();
        pmi.fn  = fn;
        pmi.ctx = ctx;
        if (!trap_set_gate(APIC_NMI_VECTOR, pmi_nmi_entry)) {
                pmi.fn = NULL;
                irq_put(flags);
                return ST_UNSUPPORTED;
        }
        pmi.saved_lvtpc = apic_read(APIC_LVTPC);
        pmi.ext         = ext_lvt_offset;
        if (pmi.ext >= 0)
                pmi.saved_eilvt = apic_read(APIC_EILVT((unsigned)pmi.ext));
        pmi.enabled = true;
        apic_write(APIC_LVTPC, pmi.lvt);
        if (pmi.ext >= 0)
                apic_write(APIC_EILVT((unsigned)pmi.ext), pmi.lvt);
        irq_put(flags);
        return ST_OK;
}

void cpu_pmi_disable(void)
{
        if (!pmi.enabled)
                return;
        uint64_t flags = irq_save();
        apic_write(APIC_LVTPC, pmi.saved_lvtpc);
        if (pmi.ext >= 0)
                apic_write(APIC_EILVT((unsigned)pmi.ext), pmi.saved_eilvt);
        pmi.enabled = false;
        trap_restore_gate(APIC_NMI_VECTOR);
        pmi.fn  = NULL;
        pmi.ctx = NULL;
        pmi.ext = -1;
        irq_put(flags);
}

status_t cpu_pmi_selftest(uint64_t *tsc_round_trip)
{
        uint32_t id;
        bool     ok;

        *tsc_round_trip = 0;
        if (!pmi.enabled)
                return ST_BAD_ARG;
        id = pmi.mode == APIC_MODE_X2APIC ? (uint32_t)rdmsr(APIC_X2APIC_ID_MSR)
                                          : apic_read(APIC_ID) >> 24;
        uint64_t icr = apic_icr_self_nmi(pmi.mode, id, &ok);
        if (!ok)
                return ST_UNSUPPORTED;
        uint64_t before = pmi.n_nmi;
        uint64_t t0     = rdtsc_ordered();
        if (pmi.mode == APIC_MODE_X2APIC) {
                wrmsr(apic_x2apic_msr(APIC_ICR), icr);
        } else {
                apic_write(APIC_ICR2, (uint32_t)(icr >> 32));
                apic_write(APIC_ICR, (uint32_t)icr); /* the low write sends it */
        }
        for (uint64_t i = 0; i < SELFTEST_SPINS && pmi.n_nmi == before; i++)
                __asm__ volatile("pause" ::: "memory");
        uint64_t t1 = rdtsc_ordered();
        if (pmi.n_nmi == before)
                return ST_TIMEOUT;
        *tsc_round_trip = t1 - t0;
        return ST_OK;
}
