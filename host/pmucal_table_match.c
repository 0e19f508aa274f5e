/** @file pmucal-table match DIR: pick the latency table in DIR (and two levels of
 *  subdirectories) that fits the machine it runs on. Standard output gets the answer alone,
 *  the path of the table; this machine, every candidate's score and every skipped file go to
 *  standard error. Among equal scores the newest run (method.date) wins, then the path.
 *  match --collector URL asks a collector for its machine type's reference table instead. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "host/arch.h"
#include "host/pmucal_table.h"

#define MAX_CANDIDATES 256

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
        FILE *f;
        char  line[256];

        memset(h, 0, sizeof(*h));
        host_cpu_identify(&h->cpu);
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

static bool same(const char *a, const char *b)
{
        return a && b && *a && !strcmp(a, b);
}

/* Score a table against the host; -1 = does not fit. Appends the reasons to why. */
static int score(const struct pmucal_table *t, const struct host_id *h, char *why, size_t n)
{
        int    s  = 0;
        double hz = t->tsc_hz ? (double)t->tsc_hz : (double)t->core_hz;

        if (!same(t->vendor, h->cpu.vendor_str) || t->family != h->cpu.family ||
            t->model != h->cpu.model) {
                snprintf(why, n, "different CPU: %s family/model %xh/%xh (%u/%u)",
                         cli_str(t->vendor), t->family, t->model, t->family, t->model);
                return -1;
        }
        snprintf(why, n, "vendor/family/model match");
        if (t->stepping == h->cpu.stepping) {
                s += 8;
                strncat(why, ", stepping matches", n - strlen(why) - 1);
        } else {
                strncat(why, ", stepping differs", n - strlen(why) - 1);
        }
        if (same(t->brand, h->cpu.brand)) {
                s += 4;
                strncat(why, ", brand matches", n - strlen(why) - 1);
        }
        if (same(t->smbios_product, h->product)) {
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

/* True when a table dated @p a is newer than one dated @p b (ISO 8601 UTC compares as text;
 * the first 19 characters, so a missing "Z" does not count; no date is oldest). */
static bool newer(const char *a, const char *b)
{
        return a && (!b || strncmp(a, b, 19) > 0);
}

/* match --collector URL [--cpu SIG] [--timeout S] [-o FILE]: this machine's CPU signature
 * (or SIG, another machine type's) asked of a collector (host/pmucal_table_collector.c). */
static int match_collector(int argc, char **argv)
{
        const char *url = NULL, *cpu = NULL, *out = NULL;
        double      timeout_s = 10;
        char        sig[16], *end;

        for (int i = 0; i < argc; i++) {
                if (i + 1 >= argc) {
                        fprintf(stderr, "pmucal-table: match: %s needs a value\n", cli_esc(argv[i]));
                        return EXIT_USAGE;
                }
                if (!strcmp(argv[i], "--collector"))
                        url = argv[++i];
                else if (!strcmp(argv[i], "--cpu"))
                        cpu = argv[++i];
                else if (!strcmp(argv[i], "-o"))
                        out = argv[++i];
                else if (!strcmp(argv[i], "--timeout")) {
                        timeout_s = strtod(argv[++i], &end);
                        if (end == argv[i] || *end || !(timeout_s > 0 && timeout_s <= 3600)) {
                                fprintf(stderr, "pmucal-table: match: --timeout wants seconds (0 < S <= "
                                                "3600), got %s\n", cli_esc(argv[i]));
                                return EXIT_USAGE;
                        }
                } else {
                        fprintf(stderr, "pmucal-table: match: unknown option %s\n", cli_esc(argv[i]));
                        return EXIT_USAGE;
                }
        }
        if (cpu && (strncmp(cpu, "0x", 2) || !cpu[2] || strspn(cpu + 2, "0123456789abcdef") != strlen(cpu + 2) ||
                    strlen(cpu) > 10)) {
                fprintf(stderr, "pmucal-table: match: --cpu wants a CPUID.1:EAX signature as the inventory "
                                "writes it (0x60fb1), got %s\n", cli_esc(cpu));
                return EXIT_USAGE;
        }
        if (!cpu) {
                struct host_id h;

                host_identify(&h);
                snprintf(sig, sizeof(sig), "0x%x", (unsigned)h.cpu.signature);
                cpu = sig;
                fprintf(stderr, "this machine: %s family/model %xh/%xh stepping %u, CPU signature %s\n",
                        h.cpu.vendor_str, h.cpu.family, h.cpu.model, h.cpu.stepping, cpu);
        }
        return cli_match_collector(url, cpu, timeout_s, out);
}

int cmd_match(int argc, char **argv)
{
        static char   *paths[MAX_CANDIDATES];
        static char    best_date[64];
        struct host_id h;
        int            n = 0, best = -1, best_score = -1;

        if (argc >= 2 && !strcmp(argv[0], "--collector"))
                return match_collector(argc, argv);
        if (argc != 1) {
                fprintf(stderr, "pmucal-table: match: wrong number of arguments (DIR)\n");
                return EXIT_USAGE;
        }
        if (add_candidates(argv[0], 0, paths, &n)) {
                fprintf(stderr, "pmucal-table: %s: cannot open directory: %s\n", cli_esc(argv[0]),
                        strerror(errno));
                return EXIT_USAGE;
        }
        qsort(paths, (size_t)n, sizeof(paths[0]), cmp_str);
        host_identify(&h);
        fprintf(stderr, "this machine: %s family/model %xh/%xh (%u/%u) stepping %u, \"%s\", "
                        "SMBIOS \"%s\", %.0f MHz\n", h.cpu.vendor_str, h.cpu.family, h.cpu.model,
                h.cpu.family, h.cpu.model, h.cpu.stepping, cli_esc(h.cpu.brand), cli_esc(h.product),
                h.mhz);
        for (int i = 0; i < n; i++) {
                struct pmucal_table *t;
                char                 err[512], why[256];

                if (pmucal_table_load(paths[i], &t, err, sizeof(err)) != PMUCAL_OK) {
                        fprintf(stderr, "  skip %s: %s\n", cli_esc(paths[i]), err);
                        continue;
                }
                int s = score(t, &h, why, sizeof(why));
                fprintf(stderr, "  %s %s: %s (score %d, date %s)\n", s < 0 ? "skip" : "cand",
                        cli_esc(paths[i]), cli_esc(why), s, cli_str(t->date));
                if (s >= 0 && (s > best_score ||
                               (s == best_score && newer(t->date, best_date[0] ? best_date : NULL)))) {
                        best_score = s;
                        best       = i;
                        snprintf(best_date, sizeof(best_date), "%s", t->date ? t->date : "");
                }
                pmucal_table_free(t);
        }
        if (best < 0)
                fprintf(stderr, "pmucal-table: no table in %s fits this machine (%d candidates)\n",
                        cli_esc(argv[0]), n);
        else
                printf("%s\n", cli_esc(paths[best]));
        for (int i = 0; i < n; i++)
                free(paths[i]);
        return best < 0 ? EXIT_BAD : 0;
}
