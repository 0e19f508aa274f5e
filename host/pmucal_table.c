/** @file pmucal-table: check, show, classify (by level, by data source, by TLB class), compare and pick pmucal latency and TLB tables.
 * Host only (libpmucal's public API; CPUID through boot/x86/cpuid.c for match). This file:
 * the command line and the helpers the subcommands share (host/pmucal_table.h).
 *
 * Exit codes: 0 success; 1 a table is bad or cannot answer (or, for match, no table fits, or
 * standard output could not be written);
 * 2 usage error (an unknown data source too); 3 classify -: some input lines were not
 * latencies, diff: a level or TLB figure moved beyond the runs' own spread; 4 classify-source:
 * the table has no bucket for that source. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/cli_stdout.h"
#include "host/pmucal_table.h"

static int usage(const char *why)
{
        FILE *f = why ? stderr : stdout;

        if (why)
                fprintf(stderr, "pmucal-table: %s\n", why);
        fprintf(f,
                "usage: pmucal-table check FILE\n"
                "       pmucal-table show [--json|--csv] FILE\n"
                "       pmucal-table classify [--unit U] [--core-ghz G] [--field N] FILE LATENCY...|-\n"
                "       pmucal-table classify-source [--unit U] [--core-ghz G] FILE SOURCE LATENCY...\n"
                "                    (SOURCE: dram-remote, c2c-remote-hitm, L2, lfb, ...; or\n"
                "                    --perf-data-src HEX, or --ibs-op-data2 HEX --ibs-op-data3 HEX\n"
                "                    with the latency optional: IBS DcMissLat core cycles)\n"
                "       pmucal-table classify-tlb [--unit U] FILE [dtlb:|itlb:]4k|2m|1g ADDED...|-\n"
                "       pmucal-table report [--json] [--unit U] [--core-ghz G] [--fields F]\n"
                "                    [--total N --rate R] [--top K] FILE [PERF-OUTPUT|-]\n"
                "                    (a dcache report from perf script -F ip,sym,addr,weight,data_src\n"
                "                    or perf mem report -D)\n"
                "       pmucal-table diff A B          (two tables, two c2c.json or two numa-matrix.json)\n"
                "       pmucal-table match DIR\n"
                "       pmucal-table match --collector http://HOST[:PORT][/PATH] [--cpu SIG]\n"
                "                    [--timeout S] [-o FILE]  (the collector's reference table for\n"
                "                    this machine's CPU signature, or SIG's; 10 s by default)\n"
                "       pmucal-table --version | --help\n"
                "FILE: a latency table (latency-table.json) or a TLB table (tlb-table.json);\n"
                "classify-tlb and diff also read the tlb member of a latency table.\n"
                "A latency is a number with an optional unit suffix: ns, tsc (TSC ticks) or core\n"
                "(core cycles); a bare number is in --unit U: table (default: the clock of the\n"
                "table's own figures), tsc, core or ns. '-' reads one latency per line from\n"
                "standard input and writes one line for each, in order: a line without a latency\n"
                "gives \"-\" (a bad one with its reason on stderr). --field N: the N-th blank-\n"
                "separated field of each line (perf script). --core-ghz G: the core clock the\n"
                "samples ran at, for core cycles on a table without a core:TSC ratio.\n"
                "exit: 0 ok, 1 bad table (or no match, or standard output not written), 2 usage\n"
                "      (an unknown source too), 3 bad input lines (classify -) or a level or TLB\n"
                "      figure beyond the runs' spread (diff), 4 the table has no bucket for that\n"
                "      source (classify-source)\n");
        return why ? EXIT_USAGE : 0;
}

const char *cli_esc(const char *s)
{
        static char buf[8][1024];
        static int  k;

        k = (k + 1) % 8;
        pmucal_escape(buf[k], sizeof(buf[k]), s ? s : "null");
        return buf[k];
}

const char *cli_str(const char *s)
{
        return s ? cli_esc(s) : "null";
}

struct pmucal_table *cli_load_table(const char *path)
{
        struct pmucal_table *t;
        char                 err[512];

        if (pmucal_table_load(path, &t, err, sizeof(err)) != PMUCAL_OK) {
                fprintf(stderr, "pmucal-table: %s\n", err); /* the library escaped it */
                return NULL;
        }
        return t;
}

struct pmucal_tlb *cli_load_tlb(const char *path)
{
        struct pmucal_tlb *t;
        char               err[512];

        if (pmucal_tlb_load(path, &t, err, sizeof(err)) != PMUCAL_OK) {
                fprintf(stderr, "pmucal-table: %s\n", err);
                return NULL;
        }
        return t;
}

bool cli_parse_unit(const char *s, enum pmucal_unit *u)
{
        for (int i = PMUCAL_UNIT_TABLE; i <= PMUCAL_UNIT_NS; i++)
                if (!strcmp(s, pmucal_unit_name((enum pmucal_unit)i))) {
                        *u = (enum pmucal_unit)i;
                        return true;
                }
        return false;
}

int cli_core_ghz(const char *path, struct pmucal_table *t, const char *ghz)
{
        char  *end;
        double g = strtod(ghz, &end);

        if (end == ghz || *end || !isfinite(g) || g <= 0 || g > 1000) {
                fprintf(stderr, "pmucal-table: --core-ghz \"%s\" is not a clock in GHz (0 < G <= 1000)\n",
                        cli_esc(ghz));
                return EXIT_USAGE;
        }
        if (pmucal_table_set_core_ratio(t, g * 1e9 / (double)(t->tsc_hz ? t->tsc_hz : 1)) !=
            PMUCAL_OK) {
                fprintf(stderr, "pmucal-table: %s: --core-ghz %s: the table has no TSC rate (or the "
                                "ratio is out of range), so core cycles cannot be related to it\n",
                        cli_esc(path), cli_esc(ghz));
                return EXIT_BAD;
        }
        return 0;
}

static const double pow10_tab[] = { 1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                    1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15 };

bool cli_parse_latency(const char *s, size_t len, enum pmucal_unit dflt, double *v,
                       enum pmucal_unit *unit)
{
        const char *p = s, *end = s + len, *num_end;
        uint64_t    m = 0;
        unsigned    digits = 0, frac = 0;
        bool        slow = false, neg = false;

        /* A minus sign: -0, -0.0 are a latency of zero to the library (classified as such);
         * any other negative number is not a latency (a usage error, as before). */
        if (p < end && *p == '-') {
                neg = true;
                s   = ++p;
        }
        while (p < end && *p >= '0' && *p <= '9') {
                m = m * 10 + (uint64_t)(*p++ - '0');
                digits++;
        }
        if (p < end && *p == '.') {
                for (p++; p < end && *p >= '0' && *p <= '9'; p++, frac++, digits++)
                        m = m * 10 + (uint64_t)(*p - '0');
        }
        if (!digits)
                return false;
        if (p < end && (*p == 'e' || *p == 'E')) { /* exponent: strtod below */
                const char *q = p + 1;
                if (q < end && (*q == '+' || *q == '-'))
                        q++;
                if (q >= end || *q < '0' || *q > '9')
                        return false;
                while (q < end && *q >= '0' && *q <= '9')
                        q++;
                p    = q;
                slow = true;
        }
        num_end = p;
        if (slow || digits > 15) { /* beyond exact double arithmetic: let libc round it */
                char buf[64];
                if ((size_t)(num_end - s) >= sizeof(buf))
                        return false;
                memcpy(buf, s, (size_t)(num_end - s));
                buf[num_end - s] = '\0';
                *v = strtod(buf, NULL);
        } else {
                /* m and 10^frac are exact doubles, so one correctly rounded division gives the
                 * same double as strtod. */
                *v = (double)m / pow10_tab[frac];
        }
        if (neg && *v != 0)
                return false;
        if (neg)
                *v = -*v;
        while (p < end && (*p == ' ' || *p == '\t'))
                p++;
        *unit = dflt;
        if (end - p >= 2 && !memcmp(p, "ns", 2) && (p += 2))
                *unit = PMUCAL_UNIT_NS;
        else if (end - p >= 3 && !memcmp(p, "tsc", 3) && (p += 3))
                *unit = PMUCAL_UNIT_TSC;
        else if (end - p >= 4 && !memcmp(p, "core", 4) && (p += 4))
                *unit = PMUCAL_UNIT_CORE;
        while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
                p++;
        return p == end && isfinite(*v);
}

int main(int argc, char **argv)
{
        const char *cmd = argc > 1 ? argv[1] : "";

        cli_stdout_check_at_exit("pmucal-table", EXIT_BAD);
        if (argc < 2)
                return usage("no command");
        if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help"))
                return usage(NULL);
        if (!strcmp(cmd, "--version")) {
                printf("pmucal-table (pmucal %s), libpmucal %s\n",
#ifdef PMUCAL_VERSION
                       PMUCAL_VERSION,
#else
                       "unknown",
#endif
                       pmucal_version_string());
                return 0;
        }
        if (!strcmp(cmd, "check"))
                return argc == 3 ? cmd_check(argv[2]) : usage("check: wrong number of arguments");
        if (!strcmp(cmd, "show"))
                return cmd_show(argc - 2, argv + 2);
        if (!strcmp(cmd, "classify"))
                return cmd_classify(argc - 2, argv + 2);
        if (!strcmp(cmd, "classify-source"))
                return cmd_classify_source(argc - 2, argv + 2);
        if (!strcmp(cmd, "report"))
                return cmd_report(argc - 2, argv + 2);
        if (!strcmp(cmd, "classify-tlb"))
                return cmd_classify_tlb(argc - 2, argv + 2);
        if (!strcmp(cmd, "diff"))
                return cmd_diff(argc - 2, argv + 2);
        if (!strcmp(cmd, "match"))
                return cmd_match(argc - 2, argv + 2);
        return usage("unknown command");
}
