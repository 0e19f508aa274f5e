/** @file
 * The x86-64 part of the inventory phase (see app/gather.h): CPUID, the MSRs no CPUID bit
 * guarantees (probed through the safe accessors), microcode and the TSC rate.
 */
#include "app/gather.h"
#include "app/cpus.h"
#include "boot/cpu.h"
#include "pmu/x86/fault_probe.h"

#include "lib/stats.h"

#include "boot/x86/coreclk.h"
#include "boot/x86/lfence.h"
#include "boot/x86/msr.h"
#include "boot/x86/msr_misc.h"
#include "pmu/x86/msr_arch.h"
#include "pmu/x86/perf_caps.h"
#include "report/x86/inventory_cpuid.h"

#define TSC_CAL_RUNS 3
#define TSC_CAL_MS   50

/* One row of the inventory's register list: @p read is not called when @p probe is false. */
static struct inv_msr *probe_msr(struct inventory *inv, const char *name, uint32_t msr,
                                 bool probe, const char *why_not, status_t (*read)(uint64_t *))
{
        struct inv_msr *m = &inv->msrs[inv->n_msrs++];

        *m = (struct inv_msr){ .name = name, .msr = msr, .st = ST_UNSUPPORTED, .why = why_not };
        if (probe)
                m->st = read(&m->value);
        return m;
}

static const struct cpu_info *probe_cpu; /* the CPU the readers below ask about */

static status_t read_perf_caps(uint64_t *v) { return pmu_perf_caps_read(probe_cpu, v); }
static status_t read_mperf(uint64_t *v) { uint64_t a; return x86_aperf_mperf_read(&a, v); }
static status_t read_aperf(uint64_t *v) { uint64_t m; return x86_aperf_mperf_read(v, &m); }
static status_t read_platform_info(uint64_t *v) { return x86_platform_info_read(probe_cpu, v); }

static void probe_msrs(struct inventory *inv)
{
        const struct cpu_info *c     = &inv->cpu;
        bool                   intel = c->vendor == VEN_INTEL;

        probe_cpu = c;
        probe_msr(inv, "IA32_PERF_CAPABILITIES", MSR_IA32_PERF_CAPABILITIES, c->intel.pdcm,
                  "CPUID.01H:ECX[15] PDCM is clear", read_perf_caps);
        probe_msr(inv, "IA32_MPERF", MSR_IA32_MPERF, c->aperfmperf,
                  "CPUID.06H:ECX[0] is clear", read_mperf);
        probe_msr(inv, "IA32_APERF", MSR_IA32_APERF, c->aperfmperf,
                  "CPUID.06H:ECX[0] is clear", read_aperf);
        probe_msr(inv, "MSR_SMI_COUNT", MSR_SMI_COUNT, x86_smi_count_exists(c), "Intel only",
                  x86_smi_count_read);
        const struct inv_msr *pi = probe_msr(inv, "MSR_PLATFORM_INFO", MSR_PLATFORM_INFO, intel,
                                             "Intel only", read_platform_info);

        inv->microcode_st = x86_ucode_rev_read(c, &inv->microcode);

        uint64_t nominal = pi->st == ST_OK ? x86_platform_info_nominal_hz(pi->value) : 0;
        if (nominal)
                inv->nominal_hz = nominal;
        else if (c->base_mhz)
                inv->nominal_hz = (uint64_t)c->base_mhz * 1000000ull;
}

/* TSC ticks over TSC_CAL_MS of the firmware's timer, TSC_CAL_RUNS times; the median is the
 * rate, the spread says how much to trust it (QEMU TCG: 10-30%). */
static void calibrate_tsc(struct inventory *inv)
{
        uint64_t hz[TSC_CAL_RUNS];

        for (unsigned i = 0; i < TSC_CAL_RUNS && plat_info()->tsc_hz; i++)
                hz[i] = plat_info()->tsc_hz; /* the platform knows it (hosted: boot/plat.h) */
        for (unsigned i = 0; i < TSC_CAL_RUNS && !plat_info()->tsc_hz; i++) {
                uint64_t t0 = rdtsc_ordered();
                plat_stall_us(TSC_CAL_MS * 1000);
                uint64_t t1 = rdtsc_ordered();
                hz[i] = (t1 - t0) * (1000 / TSC_CAL_MS);
        }
        lib_sort_u64(hz, TSC_CAL_RUNS);
        inv->tsc_hz_calibrated  = hz[TSC_CAL_RUNS / 2];
        inv->tsc_cal_ms         = TSC_CAL_MS;
        inv->tsc_cal_spread_ppm = inv->tsc_hz_calibrated
                                          ? (uint32_t)((hz[TSC_CAL_RUNS - 1] - hz[0]) * 1000000ull /
                                                       inv->tsc_hz_calibrated)
                                          : 0;
        if (inv->cpu.tsc_hz_cpuid) {
                inv->tsc_hz     = inv->cpu.tsc_hz_cpuid;
                inv->tsc_source = INV_TSC_CPUID;
        } else {
                inv->tsc_hz     = inv->tsc_hz_calibrated;
                inv->tsc_source = inv->tsc_hz ? INV_TSC_CALIBRATED : INV_TSC_UNKNOWN;
        }
}

static struct x86_lfence bsp_lfence; /* how LFENCE orders this CPU's TSC reads */
static bool              replayed;   /* the CPUID is a recorded processor's */

status_t gather_cpu(struct inventory *inv, struct gather_cpu_raw *raw)
{
        struct cpuid_dump *dump = plat_alloc(sizeof(*dump));

        if (!dump)
                return ST_NO_MEM;
        inv->arch = "x86_64";
        cpuid_dump_collect(dump);
        inv->cpu_st = cpu_decode(dump, &inv->cpu);
        if (cpuid_dump_replaying()) { /* a recorded processor: nothing here is about it */
                replayed = true;
                inv->microcode_st = ST_UNSUPPORTED;
                inv->tsc_hz       = inv->cpu.tsc_hz_cpuid;
                inv->tsc_source   = inv->tsc_hz ? INV_TSC_CPUID : INV_TSC_UNKNOWN;
                if (inv->cpu.base_mhz)
                        inv->nominal_hz = (uint64_t)inv->cpu.base_mhz * 1000000ull;
                *raw = (struct gather_cpu_raw){ .regs = dump, .n = dump->n };
                return ST_OK;
        }
        x86_lfence_serialize(&inv->cpu, &bsp_lfence); /* before the TSC is first read */
        probe_msrs(inv);
        calibrate_tsc(inv);
        *raw = (struct gather_cpu_raw){ .regs = dump, .n = dump->n };
        return ST_OK;
}

void gather_cpu_report(const struct inventory *inv, const struct gather_cpu_raw *raw)
{
        rep_check(inv->cpu_st == ST_OK, "CPUID decoded (%zu leaves, max 0x%x / 0x%x)", raw->n,
                  inv->cpu.max_leaf, inv->cpu.max_ext_leaf);
        if (replayed)
                rep_info("cpuid: a recorded processor's CPUID: no MSR probed, no TSC calibrated");
        else if (bsp_lfence.how == LFENCE_NOT_SERIALIZING)
                rep_warn("tsc: %s (%s)", x86_lfence_how_text(&bsp_lfence),
                         status_str(bsp_lfence.st));
        else
                rep_info("tsc: %s", x86_lfence_how_text(&bsp_lfence));
}

void gather_cpu_release(void)
{
        x86_lfence_restore(&bsp_lfence);
}

void gather_cpu_files(struct run *r, struct gather_cpu_raw *raw)
{
        struct rep_buf b = { 0 };

        if (inventory_cpuid_text(&b, raw->regs) == ST_OK)
                run_add_file(r, "cpuid.txt", &b);
        rep_buf_free(&b);
        plat_free(raw->regs);
        raw->regs = NULL;
}

void app_cpus_fault_self(struct app_cpu *c)
{
        uint64_t v;

        c->ud_st  = cpu_fault_probe(CPU_PROBE_UD2, &c->ud_vec);
        c->pmc_st = pmu_fault_probe_rdpmc(&v, &c->pmc_vec);
}
