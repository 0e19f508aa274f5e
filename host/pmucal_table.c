/** @file pmucal-table: check, show and query pmucal latency tables; pick the one that fits the
 * machine it runs on. Host only (libc, jansson through libpmucal, CPUID through boot/x86/cpuid.c).
 *
 * Exit codes: 0 success; 1 a table is bad (or, for match, no table fits); 2 usage error
 * (unknown command, missing argument, a latency that is not a number). */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "boot/plat.h"
#include "boot/x86/cpuid.h"
#include "host/include/pmucal/table.h"
#include "host/include/pmucal/tlb.h"

#define EXIT_BAD   1
#define EXIT_USAGE 2
#define MAX_CANDIDATES 256

static int usage(const char *why)
{
        if (why)
                fprintf(stderr, "pmucal-table: %s\n", why);
        fprintf(stderr,
                "usage: pmucal-table check FILE\n"
                "       pmucal-table show FILE\n"
                "       pmucal-table classify FILE LATENCY...   (cycles, or with an ns suffix: 12.5ns)\n"
                "       pmucal-table match DIR\n"
                "       pmucal-table classify-tlb FILE [dtlb:|itlb:]4k|2m|1g ADDED_CYCLES...\n"
                "                    (FILE: tlb-table.json or a latency table with a tlb section)\n"
                "exit: 0 ok, 1 bad table (or no match), 2 usage\n");
        return EXIT_USAGE;
}

/* @p s escaped for printing (pmucal_escape): text from a file or a directory listing never
 * reaches the terminal raw. Four rotating buffers, so one printf can take several. */
static const char *esc(const char *s)
{
        static char buf[4][1024];
        static int  k;

        k = (k + 1) % 4;
        pmucal_escape(buf[k], sizeof(buf[k]), s);
        return buf[k];
}

static struct pmucal_table *load_or_report(const char *path)
{
        struct pmucal_table *t;
        char                 err[512];

        if (pmucal_table_load(path, &t, err, sizeof(err)) != PMUCAL_OK) {
                fprintf(stderr, "pmucal-table: %s\n", err);
                return NULL;
        }
        return t;
}

static int check_tlb(const char *path, const char *what)
{
        struct pmucal_tlb *k;
        char               err[512];
        size_t             n = 0;

        if (pmucal_tlb_load(path, &k, err, sizeof(err)) != PMUCAL_OK) {
                fprintf(stderr, "pmucal-table: %s\n", err);
                return EXIT_BAD;
        }
        for (size_t i = 0; i < k->n_curves; i++)
                n += k->curves[i].n_classes;
        printf("%s: ok, %s%s, %zu curve%s, %zu classes\n", esc(path), what, esc(k->schema),
               k->n_curves, k->n_curves == 1 ? "" : "s", n);
        pmucal_tlb_free(k);
        return 0;
}

/* A latency table (and its tlb member, read as classify-tlb reads it), or a TLB table. */
static int cmd_check(const char *path)
{
        struct pmucal_table *t;
        char                 err[512];
        enum pmucal_err      e = pmucal_table_load(path, &t, err, sizeof(err));

        if (e == PMUCAL_E_KIND)
                return check_tlb(path, "");
        if (e != PMUCAL_OK) {
                fprintf(stderr, "pmucal-table: %s\n", err);
                return EXIT_BAD;
        }
        printf("%s: ok, %s, %zu level%s:", esc(path), esc(t->schema), t->n_levels,
               t->n_levels == 1 ? "" : "s");
        for (size_t i = 0; i < t->n_levels; i++)
                printf(" %s", esc(t->levels[i].name));
        printf("\n");
        e = t->has_tlb ? check_tlb(path, "tlb member ") : 0;
        pmucal_table_free(t);
        return e ? EXIT_BAD : 0;
}

static void print_stat(const char *unit, const struct pmucal_stat *s)
{
        printf(" %s p50 %.3f (p10 %.3f, p90 %.3f, min %.3f)", unit, s->p50, s->p10, s->p90, s->min);
}

static int cmd_show(const char *path)
{
        struct pmucal_table *t = load_or_report(path);

        if (!t)
                return EXIT_BAD;
        printf("table:    %s (%s)\n", esc(path), esc(t->schema));
        printf("machine:  %s family/model %xh/%xh (%u/%u) stepping %u, \"%s\"\n",
               t->vendor[0] ? esc(t->vendor) : "?", t->family, t->model, t->family, t->model,
               t->stepping, esc(t->brand));
        if (t->has_microcode)
                printf("          microcode 0x%llx\n", (unsigned long long)t->microcode);
        printf("          core %.3f GHz, TSC %.3f GHz, SMBIOS \"%s\" \"%s\", %u node(s)\n",
               t->core_hz / 1e9, t->tsc_hz / 1e9, esc(t->smbios_manufacturer),
               esc(t->smbios_product), t->nodes);
        printf("method:   %s, layout %s, %llu-byte pages, %u windows, clock %s, prefetchers %s, "
               "pmucal %s\n",
               esc(t->kernel), esc(t->layout), (unsigned long long)t->page_bytes, t->windows,
               esc(t->clock), t->prefetchers[0] ? esc(t->prefetchers) : "?",
               esc(t->pmucal_version));
        for (size_t i = 0; i < t->n_levels; i++) {
                const struct pmucal_level *l = &t->levels[i];
                printf("level %-5s", esc(l->name));
                if (l->capacity_bytes)
                        printf(" capacity %llu B", (unsigned long long)l->capacity_bytes);
                if (l->cpuid_capacity_bytes)
                        printf(" (CPUID L%u %llu B, %s)", l->cpuid_level,
                               (unsigned long long)l->cpuid_capacity_bytes, esc(l->agreement));
                print_stat("cycles", &l->cycles);
                if (l->has_ns)
                        print_stat("ns", &l->ns);
                if (l->has_upper)
                        printf(" bucket <= %.3f cycles", l->upper_cycles);
                printf("\n");
        }
        printf("flags:   ");
        for (unsigned i = 0; i < t->n_flags; i++)
                printf(" %s", esc(t->flags[i]));
        printf("%s\n", t->n_flags ? "" : " none");
        pmucal_table_free(t);
        return 0;
}

static int cmd_classify(const char *path, int n, char **lat)
{
        struct pmucal_table *t;
        int                  rc = 0;

        for (int i = 0; i < n; i++) { /* validate all before loading: a usage error wins */
                char  *end;
                double v = strtod(lat[i], &end);
                if (end == lat[i] || (*end && strcmp(end, "ns")) || !isfinite(v) || v < 0) {
                        fprintf(stderr, "pmucal-table: latency \"%s\" is not a number of cycles "
                                        "or of ns (\"12.5ns\")\n", esc(lat[i]));
                        return EXIT_USAGE;
                }
        }
        if (!(t = load_or_report(path)))
                return EXIT_BAD;
        for (int i = 0; i < n; i++) {
                char  *end;
                double v  = strtod(lat[i], &end);
                bool   ns = *end != '\0';
                int    k  = ns ? pmucal_table_classify_ns(t, v) : pmucal_table_classify_cycles(t, v);
                if (k < 0) {
                        fprintf(stderr, "pmucal-table: %s: no ns figures in this table (core clock "
                                        "unknown); give the latency in cycles\n", esc(path));
                        rc = EXIT_BAD;
                        break;
                }
                printf("%s %s\n", esc(lat[i]), esc(t->levels[k].name));
        }
        pmucal_table_free(t);
        return rc;
}

/* ---- match ----------------------------------------------------------------------------- */

struct host_id {
        struct cpu_info cpu;
        char            product[128];
        double          mhz;
};

static void trim(char *s)
{
        size_t n = strlen(s);
        while (n && isspace((unsigned char)s[n - 1]))
                s[--n] = '\0';
}

static void host_identify(struct host_id *h)
{
        static struct cpuid_dump d;
        FILE                    *f;
        char                     line[256];

        memset(h, 0, sizeof(*h));
        cpuid_dump_collect(&d);
        cpu_decode(&d, &h->cpu);
        trim(h->cpu.brand);
        if ((f = fopen("/sys/class/dmi/id/product_name", "r"))) {
                if (fgets(h->product, sizeof(h->product), f))
                        trim(h->product);
                fclose(f);
        }
        if ((f = fopen("/proc/cpuinfo", "r"))) {
                while (fgets(line, sizeof(line), f))
                        if (!strncmp(line, "cpu MHz", 7) && strchr(line, ':')) {
                                h->mhz = strtod(strchr(line, ':') + 1, NULL);
                                break;
                        }
                fclose(f);
        }
}

/* Score a table against the host; -1 = does not fit. Appends the reasons to why. */
static int score(const struct pmucal_table *t, const struct host_id *h, char *why, size_t n)
{
        int    s = 0;
        double hz = t->tsc_hz ? (double)t->tsc_hz : (double)t->core_hz;

        if (strcmp(t->vendor, h->cpu.vendor_str) || t->family != h->cpu.family ||
            t->model != h->cpu.model) {
                snprintf(why, n, "different CPU: %s family/model %xh/%xh (%u/%u)", t->vendor,
                         t->family, t->model, t->family, t->model);
                return -1;
        }
        snprintf(why, n, "vendor/family/model match");
        if (t->stepping == h->cpu.stepping) {
                s += 8;
                strncat(why, ", stepping matches", n - strlen(why) - 1);
        } else {
                strncat(why, ", stepping differs", n - strlen(why) - 1);
        }
        if (t->brand[0] && !strcmp(t->brand, h->cpu.brand)) {
                s += 4;
                strncat(why, ", brand matches", n - strlen(why) - 1);
        }
        if (t->smbios_product[0] && h->product[0] && !strcmp(t->smbios_product, h->product)) {
                s += 2;
                strncat(why, ", SMBIOS product matches", n - strlen(why) - 1);
        }
        if (hz > 0 && h->mhz > 0 && fabs(hz / 1e6 - h->mhz) <= 0.05 * h->mhz) {
                s += 1;
                strncat(why, ", frequency within 5%", n - strlen(why) - 1);
        }
        return s;
}

static int add_candidates(const char *dir, int depth, char **paths, int *n)
{
        DIR           *d = opendir(dir);
        struct dirent *e;

        if (!d)
                return -1;
        while ((e = readdir(d)) && *n < MAX_CANDIDATES) {
                char        p[4096];
                struct stat st;
                size_t      len = strlen(e->d_name);

                if (e->d_name[0] == '.')
                        continue;
                snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
                if (stat(p, &st))
                        continue;
                if (S_ISDIR(st.st_mode) && depth < 2)
                        add_candidates(p, depth + 1, paths, n);
                else if (S_ISREG(st.st_mode) && len > 5 && !strcmp(e->d_name + len - 5, ".json"))
                        paths[(*n)++] = strdup(p);
        }
        closedir(d);
        return 0;
}

static int cmp_str(const void *a, const void *b)
{
        return strcmp(*(char *const *)a, *(char *const *)b);
}

static int cmd_match(const char *dir)
{
        static char   *paths[MAX_CANDIDATES];
        struct host_id h;
        int            n = 0, best = -1, best_score = -1;

        if (add_candidates(dir, 0, paths, &n)) {
                fprintf(stderr, "pmucal-table: %s: cannot open directory: %s\n", esc(dir), strerror(errno));
                return EXIT_USAGE;
        }
        qsort(paths, (size_t)n, sizeof(paths[0]), cmp_str);
        host_identify(&h);
        printf("this machine: %s family/model %xh/%xh (%u/%u) stepping %u, \"%s\", SMBIOS \"%s\", "
               "%.0f MHz\n", h.cpu.vendor_str, h.cpu.family, h.cpu.model, h.cpu.family,
               h.cpu.model, h.cpu.stepping, esc(h.cpu.brand), esc(h.product), h.mhz);
        for (int i = 0; i < n; i++) {
                struct pmucal_table *t;
                char                 err[512], why[256];

                if (pmucal_table_load(paths[i], &t, err, sizeof(err)) != PMUCAL_OK) {
                        printf("  skip %s: %s\n", esc(paths[i]), err);
                        continue;
                }
                int s = score(t, &h, why, sizeof(why));
                printf("  %s %s: %s (score %d)\n", s < 0 ? "skip" : "cand", esc(paths[i]), esc(why), s);
                if (s > best_score) {
                        best_score = s;
                        best       = i;
                }
                pmucal_table_free(t);
        }
        if (best < 0)
                fprintf(stderr, "pmucal-table: no table in %s fits this machine (%d candidates)\n",
                        esc(dir), n);
        else
                printf("match: %s\n", esc(paths[best]));
        for (int i = 0; i < n; i++)
                free(paths[i]);
        return best < 0 ? EXIT_BAD : 0;
}

/* "dtlb:4k", "itlb:2m", "1g" (dtlb), or a byte count; 0 when malformed. */
static uint64_t parse_page(const char *a, const char **side)
{
        char    *end;
        uint64_t v;

        *side = "dtlb";
        if (!strncmp(a, "dtlb:", 5) || !strncmp(a, "itlb:", 5)) {
                *side = a[0] == 'i' ? "itlb" : "dtlb";
                a += 5;
        }
        if (!strcmp(a, "4k"))
                return 4096;
        if (!strcmp(a, "2m"))
                return 2u << 20;
        if (!strcmp(a, "1g"))
                return 1u << 30;
        v = strtoull(a, &end, 0);
        return end != a && !*end && (v == 4096 || v == 2u << 20 || v == 1u << 30) ? v : 0;
}

/* Classify TLB-miss latencies (cycles added over an L1 TLB hit) with the TLB section. */
static int cmd_classify_tlb(const char *path, const char *page, int n, char **lat)
{
        struct pmucal_tlb *t;
        const char        *side;
        char               err[512];
        uint64_t           pb = parse_page(page, &side);

        if (!pb) {
                fprintf(stderr, "pmucal-table: page size \"%s\" is not [dtlb:|itlb:]4k, 2m or 1g\n",
                        esc(page));
                return EXIT_USAGE;
        }
        for (int i = 0; i < n; i++) {
                char  *end;
                double v = strtod(lat[i], &end);
                if (end == lat[i] || *end || !isfinite(v) || v < 0) {
                        fprintf(stderr, "pmucal-table: latency \"%s\" is not a number of cycles\n",
                                esc(lat[i]));
                        return EXIT_USAGE;
                }
        }
        if (pmucal_tlb_load(path, &t, err, sizeof(err)) != PMUCAL_OK) {
                fprintf(stderr, "pmucal-table: %s\n", err);
                return EXIT_BAD;
        }
        if (!pmucal_tlb_curve(t, side, pb)) {
                fprintf(stderr, "pmucal-table: %s: no %s curve for %s pages\n", esc(path), side, esc(page));
                pmucal_tlb_free(t);
                return EXIT_BAD;
        }
        for (int i = 0; i < n; i++) {
                const struct pmucal_tlb_class *k =
                        pmucal_tlb_classify(t, side, pb, strtod(lat[i], NULL));
                printf("%s %s\n", esc(lat[i]), k ? esc(k->name) : "?");
        }
        pmucal_tlb_free(t);
        return 0;
}

int main(int argc, char **argv)
{
        if (!strcmp(argc > 1 ? argv[1] : "", "classify-tlb") && argc >= 5)
                return cmd_classify_tlb(argv[2], argv[3], argc - 4, argv + 4);
        if (argc < 2)
                return usage("no command");
        if (!strcmp(argv[1], "check") && argc == 3)
                return cmd_check(argv[2]);
        if (!strcmp(argv[1], "show") && argc == 3)
                return cmd_show(argv[2]);
        if (!strcmp(argv[1], "classify") && argc >= 4)
                return cmd_classify(argv[2], argc - 3, argv + 3);
        if (!strcmp(argv[1], "match") && argc == 3)
                return cmd_match(argv[2]);
        if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
                usage(NULL);
                return 0;
        }
        return usage(strcmp(argv[1], "check") && strcmp(argv[1], "show") &&
                                     strcmp(argv[1], "classify") && strcmp(argv[1], "match") &&
                                     strcmp(argv[1], "classify-tlb")
                             ? "unknown command"
                             : "wrong number of arguments");
}
