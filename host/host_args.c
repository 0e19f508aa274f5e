/** @file pmucal-host's command line (see host/host_args.h): the option table, strict parsing
 *  and the help generated from the table. Host only. */
#include "host/host_args.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "boot/linux/linux_plat.h"

/* The modes an option applies to. */
enum { M_LAT = 1, M_TLB = 2, M_C2C = 4, M_NUMA = 8, M_INV = 16, M_SWEEP = M_LAT | M_TLB,
       M_ALL = 31 };

#define C2C_ROUNDS_MAX (BENCH_C2C_MAX_ROUNDS - 24) /* the kernel's own extra rounds */
enum opt_kind { K_FLAG, K_STR, K_NUM, K_WORD };

static const char *const pages_lat[]  = { "4k", "2m", NULL };
static const char *const pages_tlb[]  = { "4k", "2m", "both", NULL };
static const char *const layouts[]    = { "random", "groups", "stride", NULL };
static const char *const prefetches[] = { "off", "keep", NULL };

/* One row per option; --help prints them in this order. */
static const struct opt {
        const char        *name, *arg;
        unsigned           modes;
        enum opt_kind      kind;
        uint64_t           min, max;  /* K_NUM; max 0 = the number of CPUs - 1 */
        const char *const *words;     /* K_WORD */
        const char        *help;
} opts[] = {
        /* name         arg     modes    kind    min max             words */
        { "--tlb",      NULL,   M_ALL,   K_FLAG, 0,  0,              NULL,
          "calibrate the TLBs instead of the memory latency (the firmware's TLB phase)" },
        { "--c2c",      NULL,   M_ALL,   K_FLAG, 0,  0,              NULL,
          "measure cache-to-cache latency between every pair of CPUs instead" },
        { "--numa",     NULL,   M_ALL,   K_FLAG, 0,  0,              NULL,
          "measure the NUMA latency matrix, loaded latency and the bandwidth matrix with "
          "buffers bound to each node instead" },
        { "--inventory", NULL,  M_ALL,   K_FLAG, 0,  0,              NULL,
          "the firmware's inventory phase instead: inventory.json and its console report, of "
          "this machine or of a recorded CPUID dump and ACPI tables" },
        { "--cpuid-dump", "FILE", M_INV, K_STR,  0,  0,              NULL,
          "CPUID from a recorded dump (cpuid -r, or an AIDA64/InstLatx64 dump) instead of "
          "this CPU; --cpu N picks its N-th processor block" },
        { "--acpi-dir", "DIR",  M_INV,   K_STR,  0,  0,              NULL,
          "ACPI tables from raw files in DIR (acpixtract's apic.dat, srat.dat, ..., or APIC, "
          "SRAT as in /sys/firmware/acpi/tables) instead of this machine's" },
        { "--out",      "DIR",  M_ALL,   K_STR,  0,  0,              NULL,
          "folder for the results, created and locked for the run (default: a new folder "
          "pmucal-<UTC date>T<time>Z in the current directory)" },
        { "--cpu",      "N",    M_SWEEP | M_INV, K_NUM, 0, 0,        NULL,
          "logical CPU to pin to, 0..CPUs-1 (default 0); with --cpuid-dump, the dump's "
          "processor block" },
        { "--quick",    NULL,   M_SWEEP, K_FLAG, 0,  0,              NULL, "short sweep" },
        { "--full",     NULL,   M_SWEEP, K_FLAG, 0,  0,              NULL, "complete sweep (default)" },
        { "--page",     "SIZE", M_SWEEP, K_WORD, 0,  0,              pages_tlb,
          "pages of the buffer: 4k or 2m (default: 2m for --full, whose DRAM points lie far "
          "beyond a 4 KiB-page TLB's reach, 4k for --quick); with --tlb also both (default)" },
        { "--layout",   "L",    M_LAT,   K_WORD, 0,  0,              layouts,
          "pointer-chase order: random (default), groups or stride" },
        { "--reps",     "N",    M_LAT,   K_NUM,  11, 1001,           NULL,
          "timing windows kept per point, 11..1001 (default 11)" },
        { "--max-mib",  "N",    M_LAT,   K_NUM,  0,  1048576,        NULL,
          "largest working set in MiB, 0..1048576, at most half the memory (default 0: four "
          "times the largest CPUID cache; the quick profile stops at 4 MiB)" },
        { "--prefetch", "P",    M_LAT,   K_WORD, 0,  0,              prefetches,
          "hardware prefetchers during the sweep: off (default) or keep" },
        { "--seed",     "N",    M_LAT,   K_NUM,  0,  UINT64_MAX,     NULL,
          "seed of the chain order, 0..18446744073709551615 (decimal or 0x-hex)" },
        { "--with-c2c", NULL,   M_LAT,   K_FLAG, 0,  0,              NULL,
          "after the sweep, measure cache-to-cache latency as --c2c does and add the table's "
          "c2c section" },
        { "--with-numa", NULL,  M_LAT,   K_FLAG, 0,  0,              NULL,
          "before the sweep, measure the NUMA matrix and loaded latency as --numa does (on "
          "the sweep's DRAM page size) and add the table's numa section: DRAM-local and "
          "remote levels" },
        { "--with-tlb", NULL,   M_LAT,   K_FLAG, 0,  0,              NULL,
          "after the sweep, calibrate the TLBs as --tlb does (both page sizes) and add the "
          "table's tlb member" },
        { "--rounds",   "N",    M_C2C,   K_NUM,  11, C2C_ROUNDS_MAX, NULL,
          "rounds per pair, 11..1000 (default 200)" },
        { "--ws-mib",   "N",    M_NUMA,  K_NUM,  1,  65536,          NULL,
          "buffer per node in MiB, 1..65536 (default: four times the largest cache, 64..1024)" },
        { "--windows",  "N",    M_NUMA,  K_NUM,  11, BENCH_JOB_MAX_WINDOWS, NULL,
          "timing windows per cell and point, 11..64 (default 11)" },
        { "--load-ms",  "N",    M_NUMA,  K_NUM,  1,  10000,          NULL,
          "how long the loaders stream per point, 1..10000 ms (default 20)" },
        { "--help",     NULL,   M_ALL,   K_FLAG, 0,  0,              NULL, "print this help and exit" },
};

/* "  NAME ARG        text", the text wrapped at 79 columns under itself. */
static void print_wrapped(FILE *f, const char *lhs, const char *text, const char *tail)
{
        char        all[320];
        const char *p = all;
        int         indent = 18, width = 79 - 18;

        snprintf(all, sizeof(all), "%s%s", text, tail);
        fprintf(f, "  %-15s ", lhs);
        while (*p) {
                int n = (int)strlen(p), cut = n;
                if (n > width)
                        for (cut = width; cut > 0 && p[cut] != ' '; cut--)
                                ;
                if (cut <= 0)
                        cut = n > width ? width : n;
                fprintf(f, "%.*s\n", cut, p);
                p += cut;
                while (*p == ' ')
                        p++;
                if (*p)
                        fprintf(f, "%*s", indent, "");
        }
}

static const char *mode_note(unsigned modes)
{
        return modes == M_LAT ? " [latency]" : modes == M_SWEEP ? " [latency, --tlb]"
             : modes == M_C2C ? " [--c2c]" : modes == M_NUMA ? " [--numa]"
             : modes == M_INV ? " [--inventory]" : modes == (M_SWEEP | M_INV)
             ? " [latency, --tlb, --inventory]" : "";
}

/* The modes' flags, for messages. */
static const char *mode_flag(enum host_mode m)
{
        return m == HOST_MODE_TLB ? "--tlb" : m == HOST_MODE_C2C ? "--c2c"
             : m == HOST_MODE_NUMA ? "--numa" : m == HOST_MODE_INVENTORY ? "--inventory"
             : "the latency sweep";
}

static void help(FILE *f)
{
        fprintf(f, "usage: pmucal-host [--tlb|--c2c|--numa|--inventory] [--out DIR] [OPTION...]\n"
                   "Measures this machine's memory latency per cache level (default), its\n"
                   "data TLBs (--tlb), cache-to-cache latency (--c2c) or the NUMA matrix\n"
                   "(--numa), and writes latency-table.json and latency-curve.csv\n"
                   "(tlb-table.json and tlb-curve.csv; c2c.json; numa-matrix.json); or says\n"
                   "what the firmware makes of a machine (--inventory: inventory.json).\n\n");
        for (size_t i = 0; i < ARRAY_SIZE(opts); i++) {
                char lhs[32];
                snprintf(lhs, sizeof(lhs), "%s%s%s", opts[i].name, opts[i].arg ? " " : "",
                         opts[i].arg ? opts[i].arg : "");
                print_wrapped(f, lhs, opts[i].help, mode_note(opts[i].modes));
        }
        fprintf(f, "  %-15s same as --help\n\nexit status: 0 done, 1 a failure, 2 a usage error\n",
                "-h");
}

static int usage_error(FILE *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int usage_error(FILE *err, const char *fmt, ...)
{
        va_list ap;

        fprintf(err, "pmucal-host: ");
        va_start(ap, fmt);
        vfprintf(err, fmt, ap);
        va_end(ap);
        fprintf(err, "\nrun 'pmucal-host --help' for every option\n");
        return HOST_ARGS_USAGE;
}

/* A whole number in decimal or 0x-hex, nothing else (no sign, no space, no suffix). */
static bool parse_u64(const char *s, uint64_t *out)
{
        unsigned base = 10;
        uint64_t v    = 0;

        if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
                base = 16;
                s += 2;
        }
        if (!*s)
                return false;
        for (; *s; s++) {
                unsigned d;
                if (*s >= '0' && *s <= '9')
                        d = (unsigned)(*s - '0');
                else if (base == 16 && *s >= 'a' && *s <= 'f')
                        d = (unsigned)(*s - 'a' + 10);
                else if (base == 16 && *s >= 'A' && *s <= 'F')
                        d = (unsigned)(*s - 'A' + 10);
                else
                        return false;
                if (v > (UINT64_MAX - d) / base)
                        return false;
                v = v * base + d;
        }
        *out = v;
        return true;
}

static int word_index(const char *v, const char *const *words)
{
        for (int i = 0; words[i]; i++)
                if (!strcmp(v, words[i]))
                        return i;
        return -1;
}

static void word_list(const char *const *words, char *dst, size_t cap)
{
        size_t n = 0;
        dst[0]   = '\0';
        for (int i = 0; words[i] && n < cap; i++)
                n += (size_t)snprintf(dst + n, cap - n, "%s%s", i ? (words[i + 1] ? ", " : " or ") : "",
                                      words[i]);
}

static void defaults(int argc, char **argv, struct host_opts *o)
{
        *o = (struct host_opts){ .full = true, .tlb_pages = HOST_TLB_PAGE_4K | HOST_TLB_PAGE_2M,
                                 .rounds = 200, .numa_windows = 11, .numa_load_ms = 20 };
        for (int k = 0, len = 0; k < argc && len < (int)sizeof(o->cmdline); k++)
                len += snprintf(o->cmdline + len, sizeof(o->cmdline) - (size_t)len, "%s%s",
                                k ? " " : "", argv[k]);
        o->sweep = (struct bench_sweep_cfg){ .profile         = BENCH_PROFILE_FULL,
                                             .layout          = BENCH_LAYOUT_RANDOM,
                                             .page            = PLAT_PAGE_4K,
                                             .repetitions     = BENCH_MIN_REPETITIONS,
                                             .prefetchers_off = true,
                                             .steal_count     = linux_plat_ctx_switches,
                                             .seed            = 0x706d7563616cull };
}

/* Store the value @p v of option @p op (already checked against its table row). */
static void apply(const struct opt *op, const char *v, uint64_t num, struct host_opts *o)
{
        const char *n = op->name;

        if (!strcmp(n, "--out"))
                o->out = v;
        else if (!strcmp(n, "--cpuid-dump"))
                o->cpuid_dump = v;
        else if (!strcmp(n, "--acpi-dir"))
                o->acpi_dir = v;
        else if (!strcmp(n, "--cpu"))
                o->cpu = (unsigned)num;
        else if (!strcmp(n, "--layout"))
                o->sweep.layout = (enum bench_layout)word_index(v, layouts);
        else if (!strcmp(n, "--prefetch"))
                o->sweep.prefetchers_off = !strcmp(v, "off");
        else if (!strcmp(n, "--reps"))
                o->sweep.repetitions = (uint32_t)num;
        else if (!strcmp(n, "--max-mib"))
                o->sweep.max_bytes = num * MiB;
        else if (!strcmp(n, "--seed"))
                o->sweep.seed = num;
        else if (!strcmp(n, "--rounds"))
                o->rounds = (unsigned)num;
        else if (!strcmp(n, "--ws-mib"))
                o->numa_ws_mib = (unsigned)num;
        else if (!strcmp(n, "--windows"))
                o->numa_windows = (unsigned)num;
        else if (!strcmp(n, "--load-ms"))
                o->numa_load_ms = (unsigned)num;
}

/* The --page value, once the mode is known. */
static int apply_page(const char *v, struct host_opts *o, FILE *err)
{
        bool tlb = o->mode == HOST_MODE_TLB;
        int  k   = word_index(v, tlb ? pages_tlb : pages_lat);

        if (k < 0)
                return usage_error(err, "--page: \"%s\" is not %s", v,
                                   tlb ? "4k, 2m or both" : "4k or 2m (both is for --tlb)");
        o->sweep.page = k == 1 ? PLAT_PAGE_2M : PLAT_PAGE_4K;
        o->tlb_pages  = k == 0 ? HOST_TLB_PAGE_4K : k == 1 ? HOST_TLB_PAGE_2M
                                                           : HOST_TLB_PAGE_4K | HOST_TLB_PAGE_2M;
        return HOST_ARGS_OK;
}

/* A flag (K_FLAG) @p a: a mode of its own (the one the run may name; @p *mode_bits the
 * options it takes), a --with-* phase after the sweep, or --quick / --full. */
static int flag(const char *a, struct host_opts *o, unsigned *mode_bits, FILE *err)
{
        if (!strcmp(a, "--tlb") || !strcmp(a, "--c2c") || !strcmp(a, "--numa") ||
            !strcmp(a, "--inventory")) {
                enum host_mode m = a[2] == 't' ? HOST_MODE_TLB
                                 : a[2] == 'c' ? HOST_MODE_C2C
                                 : a[2] == 'n' ? HOST_MODE_NUMA
                                               : HOST_MODE_INVENTORY;
                if (o->mode != HOST_MODE_LATENCY && o->mode != m)
                        return usage_error(err, "--tlb, --c2c, --numa and "
                                           "--inventory are separate runs: give "
                                           "one of them");
                o->mode    = m;
                *mode_bits = m == HOST_MODE_TLB ? M_TLB : m == HOST_MODE_C2C ? M_C2C
                           : m == HOST_MODE_NUMA ? M_NUMA : M_INV;
                return HOST_ARGS_OK;
        }
        if (!strcmp(a, "--with-c2c")) {
                o->with_c2c = true;
                return HOST_ARGS_OK;
        }
        if (!strcmp(a, "--with-numa")) {
                o->with_numa = true;
                return HOST_ARGS_OK;
        }
        if (!strcmp(a, "--with-tlb")) {
                o->with_tlb = true;
                return HOST_ARGS_OK;
        }
        o->full = !strcmp(a, "--full");
        o->sweep.profile = o->full ? BENCH_PROFILE_FULL : BENCH_PROFILE_QUICK;
        return HOST_ARGS_OK;
}

/* Option @p op given as @p a with value @p v: checked by its kind and applied, except
 * --page (kept in @p *page, applied once the mode is known) and --cpu (also kept in
 * @p *cpu_arg, bounded once the mode is known). */
static int value(const struct opt *op, const char *a, const char *v, unsigned n_cpus,
                 struct host_opts *o, const char **page, const char **cpu_arg, FILE *err)
{
        uint64_t num = 0, max;
        char     list[64];

        switch (op->kind) {
        case K_NUM:
                max = op->max ? op->max : (n_cpus ? n_cpus - 1 : 0);
                if (!strcmp(a, "--cpu")) {
                        max = UINT32_MAX; /* a dump's block: bounded below */
                        *cpu_arg = v;
                }
                if (!parse_u64(v, &num) || num < op->min || num > max)
                        return usage_error(err, "%s: \"%s\" is not a whole number in "
                                           "%" PRIu64 "..%" PRIu64, a, v, op->min,
                                           *cpu_arg == v ? (uint64_t)(n_cpus ? n_cpus - 1 : 0)
                                                         : max);
                break;
        case K_WORD:
                if (!strcmp(a, "--page")) {
                        *page = v;
                        return HOST_ARGS_OK;
                }
                if (word_index(v, op->words) < 0) {
                        word_list(op->words, list, sizeof(list));
                        return usage_error(err, "%s: \"%s\" is not %s", a, v, list);
                }
                break;
        default:
                if (!*v)
                        return usage_error(err, "%s: empty value", a);
                break;
        }
        apply(op, v, num, o);
        return HOST_ARGS_OK;
}

/* Every option given (@p seen, by index into opts) is one of the mode's (@p mode_bits). */
static int check_modes(const char *const *seen, unsigned mode_bits, const struct host_opts *o,
                       FILE *err)
{
        for (size_t k = 0; k < ARRAY_SIZE(opts); k++)
                if (seen[k] && !(opts[k].modes & mode_bits))
                        return usage_error(err, "%s is not an option of %s (it is for %s)", seen[k],
                                           mode_flag(o->mode),
                                           opts[k].modes == M_LAT ? "the latency sweep"
                                           : opts[k].modes == M_C2C ? "--c2c"
                                           : opts[k].modes == M_NUMA ? "--numa"
                                           : opts[k].modes == M_INV ? "--inventory"
                                                                    : "the latency sweep and --tlb");
        return HOST_ARGS_OK;
}

int host_args_parse(int argc, char **argv, unsigned n_cpus, struct host_opts *o, FILE *err)
{
        const char *page = NULL, *seen[ARRAY_SIZE(opts)] = { 0 }, *cpu_arg = NULL;
        unsigned    mode_bits = M_LAT;
        int         rc;

        defaults(argc, argv, o);
        for (int i = 1; i < argc; i++) {
                const struct opt *op = NULL;
                const char       *a = argv[i];

                for (size_t k = 0; k < ARRAY_SIZE(opts) && !op; k++)
                        if (!strcmp(a, opts[k].name))
                                op = &opts[k];
                if (!strcmp(a, "-h") || (op && !strcmp(a, "--help"))) {
                        help(stdout);
                        return HOST_ARGS_HELP;
                }
                if (!op)
                        return usage_error(err, "unknown %s '%s'", a[0] == '-' ? "option" : "argument", a);
                seen[op - opts] = op->name;
                if (op->kind == K_FLAG)
                        rc = flag(a, o, &mode_bits, err);
                else if (i + 1 >= argc)
                        rc = usage_error(err, "%s needs a value (%s)", a, op->arg);
                else
                        rc = value(op, a, argv[++i], n_cpus, o, &page, &cpu_arg, err);
                if (rc != HOST_ARGS_OK)
                        return rc;
        }
        if ((rc = check_modes(seen, mode_bits, o, err)) != HOST_ARGS_OK)
                return rc;
        /* --cpu names a CPU of this machine, except the block of a recorded dump, whose
         * count only the dump knows (host/inventory_host.c checks it) */
        if (cpu_arg && !(o->mode == HOST_MODE_INVENTORY && o->cpuid_dump) &&
            o->cpu > (n_cpus ? n_cpus - 1 : 0))
                return usage_error(err, "--cpu: \"%s\" is not a whole number in 0..%u", cpu_arg,
                                   n_cpus ? n_cpus - 1 : 0);
        /* As the firmware's plans: 2 MiB pages (transparent, MADV_HUGEPAGE) for the full
         * sweep, so that page walks do not mix into the DRAM latency; 4 KiB for the quick
         * one, which ends inside the L2 TLB's reach of 4 KiB pages. */
        o->sweep.page = o->full ? PLAT_PAGE_2M : PLAT_PAGE_4K;
        return page ? apply_page(page, o, err) : HOST_ARGS_OK;
}
