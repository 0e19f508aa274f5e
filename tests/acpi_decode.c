/** @file
 * acpi_decode: print what pmucal's parsers make of raw ACPI tables (acpixtract .dat files),
 * one fact a line (tests/acpi_canon.h), for tools/acpi-iasl-expect.py --compare to hold
 * against `iasl -d` over a whole corpus (linuxhw/ACPI).
 *
 *   build/host/acpi_decode FILE.dat...     # "== FILE" then its lines, per file
 *
 * Exit status 0; a table the parser rejects prints "<SIG> rejected: <why>".
 */
#include <stdio.h>
#include <stdlib.h>

#include "tests/acpi_canon.h"

static char lines[4 << 20];

int main(int argc, char **argv)
{
        for (int a = 1; a < argc; a++) {
                FILE   *f = fopen(argv[a], "rb");
                uint8_t *buf;
                long    n;

                if (!f) {
                        perror(argv[a]);
                        return 1;
                }
                fseek(f, 0, SEEK_END);
                n = ftell(f);
                fseek(f, 0, SEEK_SET);
                buf = malloc(n > 0 ? (size_t)n : 1);
                if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
                        fprintf(stderr, "%s: cannot read\n", argv[a]);
                        return 1;
                }
                fclose(f);
                acpi_canon(buf, (size_t)n, lines, sizeof(lines));
                printf("== %s\n%s", argv[a], lines);
                free(buf);
        }
        return 0;
}
