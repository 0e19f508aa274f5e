/** @file Starting and stopping the other processors with PSCI (see smp.h). */
#include <stddef.h>

#include "boot/arm64/smp.h"

#include "boot/arm64/sysreg.h"
#include "boot/arm64/trap.h"
#include "lib/fmt.h"
#include "lib/log.h"

#define SMP_MAX_CPUS    GIC_MADT_MAX_CPUS
#define SMP_STACK_BYTES (16u * 1024)
#define SMP_POLL_US     10u
#define SMP_OFF_CHECK_US 1000u /* how often a join asks AFFINITY_INFO before fn returned */
#define CACHE_LINE_MIN  16u  /* DC CVAC step when CTR_EL0 were to say less (it never does) */

/* What a started processor reads with its MMU off (the first eight fields, at the offsets
 * smp.h gives the assembly) and what it writes back once its MMU is on. */
struct smp_boot {
        uint64_t sctlr, tcr, mair, ttbr0, ttbr1, cpacr, vbar, sp;
        uint64_t el, hcr, cntvoff, psci_fn, smc;
        void (*fn)(void *arg);
        void             *arg;
        enum psci_conduit conduit;
        volatile uint32_t entered;  /* CurrentEL level, set by the processor once its MMU is on */
        volatile uint32_t returned; /* set when fn returned, right before CPU_OFF */
        volatile int64_t  off_ret;  /* CPU_OFF's result, should it ever return */
};

_Static_assert(offsetof(struct smp_boot, sctlr) == SMP_BOOT_SCTLR, "smp_boot layout");
_Static_assert(offsetof(struct smp_boot, tcr) == SMP_BOOT_TCR, "smp_boot layout");
_Static_assert(offsetof(struct smp_boot, mair) == SMP_BOOT_MAIR, "smp_boot layout");
_Static_assert(offsetof(struct smp_boot, ttbr0) == SMP_BOOT_TTBR0, "smp_boot layout");
_Static_assert(offsetof(struct smp_boot, ttbr1) == SMP_BOOT_TTBR1, "smp_boot layout");
_Static_assert(offsetof(struct smp_boot, cpacr) == SMP_BOOT_CPACR, "smp_boot layout");
_Static_assert(offsetof(struct smp_boot, vbar) == SMP_BOOT_VBAR, "smp_boot layout");
_Static_assert(offsetof(struct smp_boot, sp) == SMP_BOOT_SP, "smp_boot layout");
_Static_assert(offsetof(struct smp_boot, el) == SMP_BOOT_EL, "smp_boot layout");
_Static_assert(offsetof(struct smp_boot, hcr) == SMP_BOOT_HCR, "smp_boot layout");
_Static_assert(offsetof(struct smp_boot, cntvoff) == SMP_BOOT_CNTVOFF, "smp_boot layout");
_Static_assert(offsetof(struct smp_boot, psci_fn) == SMP_BOOT_PSCI_FN, "smp_boot layout");
_Static_assert(offsetof(struct smp_boot, smc) == SMP_BOOT_SMC, "smp_boot layout");

struct smp_cpu {
        struct psci_cpu  cpu;
        struct smp_boot *boot;  /* allocated at the first start, kept for the next */
        void            *stack;
        bool             busy;  /* started and not yet joined */
};

static struct gic_madt    madt;
static struct psci_cpu    found[SMP_MAX_CPUS];
static struct smp_cpu     cpus[SMP_MAX_CPUS];
static unsigned           n_cpus;
static enum psci_conduit  conduit;
static uint32_t           version;
static char               method[96] = "no PSCI: not looked for";
static uint64_t           boot_mpidr;
static bool               boot_known;

static uint64_t own_mpidr(void)
{
        return SYSREG_READ(mpidr_el1);
}

/* The boot processor alone: what every failure of smp_init leaves. */
static status_t boot_cpu_only(const char **why, const char *reason, status_t st)
{
        n_cpus  = 1;
        conduit = PSCI_CONDUIT_NONE;
        cpus[0] = (struct smp_cpu){ .cpu = { .mpidr = own_mpidr() & 0xff00ffffffull,
                                             .enabled = true, .is_boot = true } };
        cpus[0].cpu.id = psci_mpidr_pack(cpus[0].cpu.mpidr);
        fmt_snprintf(method, sizeof(method), "boot processor only: %s", reason);
        if (why)
                *why = reason;
        return st == ST_OK ? ST_UNSUPPORTED : st;
}

bool smp_on_secondary(void)
{
        return boot_known && (own_mpidr() & 0xff00ffffffull) != boot_mpidr;
}

status_t smp_init(const char **why)
{
        struct plat_fw_table ft;
        const char          *w = NULL;
        size_t               n = 0;
        status_t             st;

        boot_mpidr = own_mpidr() & 0xff00ffffffull;
        boot_known = true;
        if (plat_fw_table(PLAT_FW_ACPI, "FACP", 0, &ft) != ST_OK)
                return boot_cpu_only(why, "no FADT to name the PSCI conduit", ST_NOT_FOUND);
        if ((st = psci_conduit_from_fadt(ft.data, ft.len, &conduit, &w)) != ST_OK)
                return boot_cpu_only(why, w, st);
        version = (uint32_t)psci_call(conduit, PSCI_FN_VERSION, 0, 0, 0);
        if ((int32_t)version < 0 || psci_version_major(version) == 0)
                return boot_cpu_only(why, "PSCI_VERSION: older than 0.2 or not answering",
                                     ST_UNSUPPORTED);
        if (plat_fw_table(PLAT_FW_ACPI, "APIC", 0, &ft) != ST_OK ||
            gic_madt_parse(ft.data, ft.len, &madt) != ST_OK)
                return boot_cpu_only(why, "no usable MADT to list the processors", ST_NOT_FOUND);
        st = psci_cpus_from_madt(&madt, own_mpidr(), found, SMP_MAX_CPUS, &n);
        if (st != ST_OK)
                return boot_cpu_only(why, st == ST_NOT_FOUND ? "the MADT's GICC entries do not "
                                     "name this processor" : "the MADT's GICC entries are "
                                     "inconsistent (a repeated MPIDR)", st);
        n_cpus = (unsigned)n;
        for (unsigned i = 0; i < n_cpus; i++)
                cpus[i] = (struct smp_cpu){ .cpu = found[i] };
        fmt_snprintf(method, sizeof(method), "PSCI %u.%u CPU_ON over %s, processors from the "
                     "MADT", psci_version_major(version), psci_version_minor(version),
                     conduit == PSCI_CONDUIT_HVC ? "HVC" : "SMC");
        if (why)
                *why = NULL;
        return ST_OK;
}

const char *smp_method(void)
{
        return method;
}

unsigned smp_cpu_count(void)
{
        return n_cpus ? n_cpus : 1;
}

status_t smp_cpu_describe(unsigned idx, struct plat_cpu *out)
{
        if (!out || idx >= smp_cpu_count())
                return ST_BAD_ARG;
        if (!n_cpus)
                boot_cpu_only(NULL, "not looked for", ST_UNSUPPORTED);
        const struct psci_cpu *c = &cpus[idx].cpu;
        *out = (struct plat_cpu){ .apic_id = c->id, .enabled = c->enabled,
                                  .is_bsp = c->is_boot,
                                  .package = c->id >> 8, .core = c->id };
        return ST_OK;
}

/* Clean [p, p + n) to the point of coherency, so that a processor with its MMU off (its
 * loads then bypass the caches) reads what this one wrote. [ARM-ARM] C5.3 DC CVAC;
 * CTR_EL0.DminLine is log2 of the smallest data cache line in words. */
static void clean_to_poc(const void *p, size_t n)
{
        uint64_t  line = 4ull << (SYSREG_READ(ctr_el0) >> 16 & 0xf);
        uintptr_t a    = (uintptr_t)p & ~(uintptr_t)(line - 1);

        if (line < CACHE_LINE_MIN)
                line = CACHE_LINE_MIN;
        for (; a < (uintptr_t)p + n; a += line)
                __asm__ volatile("dc cvac, %0" : : "r"(a) : "memory");
        __asm__ volatile("dsb sy" ::: "memory");
}

static status_t affinity(const struct smp_cpu *c, int64_t *state)
{
        *state = psci_call(conduit, PSCI_FN64_AFFINITY_INFO, c->cpu.mpidr, 0, 0);
        return psci_status(*state);
}

/* The boot record for @p c: this processor's translation and control registers. */
static status_t prepare(struct smp_cpu *c, void (*fn)(void *arg), void *arg)
{
        status_t st;

        if (!c->boot && !(c->boot = plat_alloc(sizeof(*c->boot))))
                return ST_NO_MEM;
        if (!c->stack &&
            (st = plat_alloc_pages(SMP_STACK_BYTES, PLAT_PAGE_4K, &c->stack, NULL)) != ST_OK)
                return st;
        *c->boot = (struct smp_boot){
                .vbar = trap_vector_base(), .el = arm64_current_el(),
                .sp = (uint64_t)(uintptr_t)c->stack + SMP_STACK_BYTES,
                .psci_fn = PSCI_FN_CPU_OFF, .smc = conduit == PSCI_CONDUIT_SMC,
                .fn = fn, .arg = arg, .conduit = conduit };
        if (c->boot->el == 2) {
                uint64_t hcr = SYSREG_READ(hcr_el2);
                c->boot->sctlr   = SYSREG_READ(sctlr_el2);
                c->boot->tcr     = SYSREG_READ(tcr_el2);
                c->boot->mair    = SYSREG_READ(mair_el2);
                c->boot->ttbr0   = SYSREG_READ(ttbr0_el2);
                /* TTBR1_EL2 exists with FEAT_VHE only, and is in use only under E2H. */
                c->boot->ttbr1   = hcr & HCR_EL2_E2H ? SYSREG_READ(S3_4_C2_C0_1) : 0;
                c->boot->cpacr   = SYSREG_READ(cptr_el2);
                c->boot->hcr     = hcr;
                c->boot->cntvoff = SYSREG_READ(cntvoff_el2);
        } else {
                c->boot->sctlr = SYSREG_READ(sctlr_el1);
                c->boot->tcr   = SYSREG_READ(tcr_el1);
                c->boot->mair  = SYSREG_READ(mair_el1);
                c->boot->ttbr0 = SYSREG_READ(ttbr0_el1);
                c->boot->ttbr1 = SYSREG_READ(ttbr1_el1);
                c->boot->cpacr = SYSREG_READ(cpacr_el1);
        }
        clean_to_poc(c->boot, sizeof(*c->boot));
        clean_to_poc(smp_secondary_entry,
                     (size_t)(smp_secondary_entry_end - smp_secondary_entry));
        return ST_OK;
}

status_t smp_cpu_start(unsigned idx, void (*fn)(void *arg), void *arg)
{
        struct smp_cpu *c = idx < n_cpus ? &cpus[idx] : NULL;
        int64_t         state, ret;
        status_t        st;

        if (!c || !fn || c->cpu.is_boot || c->busy)
                return ST_BAD_ARG;
        if (conduit == PSCI_CONDUIT_NONE || !c->cpu.enabled)
                return ST_UNSUPPORTED;
        if ((st = affinity(c, &state)) != ST_OK) {
                log_warn("PSCI AFFINITY_INFO(0x%llx): %s", (unsigned long long)c->cpu.mpidr,
                         psci_ret_name(state));
                return st;
        }
        if (state != PSCI_AFF_OFF) {
                log_warn("processor 0x%llx is not off (AFFINITY_INFO %lld): not started",
                         (unsigned long long)c->cpu.mpidr, (long long)state);
                return ST_BAD_ARG;
        }
        if ((st = prepare(c, fn, arg)) != ST_OK)
                return st;
        ret = psci_call(conduit, PSCI_FN64_CPU_ON, c->cpu.mpidr,
                        (uint64_t)(uintptr_t)smp_secondary_entry, (uint64_t)(uintptr_t)c->boot);
        if (ret != PSCI_RET_SUCCESS) {
                log_warn("PSCI CPU_ON(0x%llx): %s (%lld)", (unsigned long long)c->cpu.mpidr,
                         psci_ret_name(ret), (long long)ret);
                return psci_status(ret);
        }
        c->busy = true;
        return ST_OK;
}

status_t smp_cpu_join(unsigned idx, uint32_t timeout_us)
{
        struct smp_cpu *c = idx < n_cpus ? &cpus[idx] : NULL;
        int64_t         state = -1;

        if (!c || !c->busy)
                return ST_OK;
        for (uint32_t t = 0; !__atomic_load_n(&c->boot->returned, __ATOMIC_ACQUIRE);
             t += SMP_POLL_US) {
                /* Now and then: a processor that entered below the boot processor's level
                 * never runs fn and turns itself off (smp_entry_arm64.S). */
                if (t % SMP_OFF_CHECK_US == 0 && t && !c->boot->entered &&
                    affinity(c, &state) == ST_OK && state == PSCI_AFF_OFF) {
                        c->busy = false;
                        log_warn("processor 0x%llx was started below EL%u, the boot processor's "
                                 "level, and cannot rise to it: it turned itself off",
                                 (unsigned long long)c->cpu.mpidr, arm64_current_el());
                        return ST_UNSUPPORTED;
                }
                if (t >= timeout_us)
                        return ST_TIMEOUT;
                plat_stall_us(SMP_POLL_US);
        }
        /* fn returned and CPU_OFF is on its way: the firmware says when it is done. */
        for (uint32_t t = 0;; t += SMP_POLL_US) {
                if (affinity(c, &state) == ST_OK && state == PSCI_AFF_OFF) {
                        c->busy = false;
                        return ST_OK;
                }
                if (t >= timeout_us)
                        break;
                plat_stall_us(SMP_POLL_US);
        }
        log_warn("processor 0x%llx did not power off: AFFINITY_INFO %lld, CPU_OFF %s",
                 (unsigned long long)c->cpu.mpidr, (long long)state,
                 c->boot->off_ret ? psci_ret_name(c->boot->off_ret) : "has not returned");
        return ST_TIMEOUT;
}

void smp_secondary_main(struct smp_boot *b)
{
        __atomic_store_n(&b->entered, arm64_current_el(), __ATOMIC_RELEASE);
        b->fn(b->arg);
        __atomic_store_n(&b->returned, 1, __ATOMIC_RELEASE);
        /* CPU_OFF does not return when it succeeds; DENIED (a trusted OS lives here) does. */
        b->off_ret = psci_call(b->conduit, PSCI_FN_CPU_OFF, 0, 0, 0);
}
