/** @file Helpers shared by the host unit tests (see test_util.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/test_util.h"

#include "tests/fake_plat.h"

void *test_load(const char *rel, size_t *len)
{
        const char *dir = getenv("PMUCAL_TESTDATA");
        char        path[512];
        FILE       *f;
        long        n;

        snprintf(path, sizeof(path), "%s/%s", dir ? dir : "tests/data", rel);
        f = fopen(path, "rb");
        if (!f)
                fail_msg("cannot open %s (run from the repository root)", path);
        fseek(f, 0, SEEK_END);
        n = ftell(f);
        fseek(f, 0, SEEK_SET);
        void *buf = malloc(n ? (size_t)n : 1);
        assert_non_null(buf);
        assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
        fclose(f);
        if (len)
                *len = (size_t)n;
        return buf;
}

void want(const char *text, const char *needle)
{
        if (!strstr(text, needle)) {
                fprintf(stderr, "%s\n", text);
                fail_msg("missing \"%s\" (console above)", needle);
        }
}

void want_not(const char *text, const char *needle)
{
        if (strstr(text, needle)) {
                fprintf(stderr, "%s\n", text);
                fail_msg("unexpected \"%s\" (console above)", needle);
        }
}

const char *last_line(const char *s)
{
        static char line[512];
        const char *end = s + strlen(s);

        while (end > s && end[-1] == '\n')
                end--;
        const char *start = end;
        while (start > s && start[-1] != '\n')
                start--;
        snprintf(line, sizeof(line), "%.*s", (int)(end - start), start);
        return line;
}

unsigned char *test_platform_qemu_3node(void)
{
        static const struct plat_cpu three[3] = {
                { .apic_id = 0, .enabled = true, .is_bsp = true },
                { .apic_id = 1, .enabled = true },
                { .apic_id = 2, .enabled = true },
        };
        static void *madt, *srat;

        fake_plat_reset();
        fake_plat_set_cpus(three, 3);
        free(madt);
        free(srat);
        madt = test_load("acpi/qemu72-q35-3node-hmat-apic.dat", NULL);
        srat = test_load("acpi/qemu72-q35-3node-hmat-srat.dat", NULL);
        fake_plat_add_acpi(madt);
        fake_plat_add_acpi(srat);
        return srat;
}

unsigned test_numa_left_out(const char *con, const char *prefix)
{
        size_t   len = strlen(prefix);
        unsigned n   = 0;

        for (const char *p = con; p && (p = strstr(p, ": left out, every window disturbed")); p++) {
                const char *ln = p;

                while (ln > con && ln[-1] != '\n')
                        ln--;
                n += strncmp(ln, prefix, len) == 0;
        }
        return n;
}
