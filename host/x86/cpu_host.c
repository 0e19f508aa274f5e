/** @file
 * The hosted programs' x86-64 CPU access (host/x86/cpu_host.h): CPUID of this CPU, or of a
 * recorded processor read from a dump file (boot/x86/cpuid_text.c parses its layouts).
 */
#include "host/x86/cpu_host.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot/x86/cpuid.h"

status_t host_cpu_identify(struct cpu_info *out)
{
        static struct cpuid_dump d;

        cpuid_dump_collect(&d);
        return cpu_decode(&d, out);
}

int host_cpu_replay(const char *path, unsigned cpu)
{
        static struct cpuid_dump d; /* replayed until the program ends */
        FILE                    *f = fopen(path, "rb");
        char                    *text;
        long                     len;
        unsigned                 n = 0;
        status_t                 st;

        if (!f) {
                fprintf(stderr, "pmucal-host: --cpuid-dump %s: %s\n", path, strerror(errno));
                return 1;
        }
        fseek(f, 0, SEEK_END);
        len = ftell(f);
        fseek(f, 0, SEEK_SET);
        text = malloc(len > 0 ? (size_t)len : 1);
        if (!text || len <= 0 || fread(text, 1, (size_t)len, f) != (size_t)len) {
                fprintf(stderr, "pmucal-host: --cpuid-dump %s: cannot read it\n", path);
                fclose(f);
                free(text);
                return 1;
        }
        fclose(f);
        st = cpuid_text_parse(text, (size_t)len, cpu, &d, &n);
        free(text);
        if (st == ST_NOT_FOUND) {
                fprintf(stderr, "pmucal-host: --cpu %u: %s has %u processor block%s (0..%u)\n",
                        cpu, path, n, n == 1 ? "" : "s", n ? n - 1 : 0);
                return 2;
        }
        if (st != ST_OK) {
                fprintf(stderr, "pmucal-host: --cpuid-dump %s: no CPUID registers in a layout "
                        "pmucal reads (cpuid -r, AIDA64/InstLatx64): %s\n", path, status_str(st));
                return 1;
        }
        cpuid_dump_replay(&d);
        return 0;
}
