/* libFuzzer target for boot/acpi*.c and boot/smbios.c.
 *
 * The input goes, unchanged, to acpi_check_header() and smbios_parse(). Then, so that the
 * fuzzer does not have to discover signatures and checksums, it is given to each ACPI
 * parser with the signature, the length and the checksum patched in (the input's first
 * bytes play the header's other fields); the buffer is an exact-size heap copy so that
 * ASan sees any read past the end. Seeds: tests/corpus/acpi/ (the fixtures of
 * tests/data/acpi and tests/data/smbios, and as linuxhw-*.dat the real tables of
 * tests/data/acpi/linuxhw, whose README names their machines and source). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "boot/acpi.h"
#include "boot/acpi_pptt.h"
#include "boot/smbios.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct acpi_madt   madt;
static struct acpi_srat   srat;
static struct acpi_slit   slit;
static struct acpi_hmat   hmat;
static struct smbios_info smbios;

static void patch(uint8_t *t, size_t n, const char *sig)
{
        uint8_t sum = 0;

        memcpy(t, sig, 4);
        t[4] = (uint8_t)n, t[5] = (uint8_t)(n >> 8), t[6] = (uint8_t)(n >> 16);
        t[7] = (uint8_t)(n >> 24);
        t[9] = 0;
        for (size_t i = 0; i < n; i++)
                sum = (uint8_t)(sum + t[i]);
        t[9] = (uint8_t)-sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        static const char *const sigs[] = { "APIC", "SRAT", "SLIT", "HMAT", "PPTT" };
        struct acpi_diag   d;
        struct smbios_diag sd;
        uint8_t *t = malloc(size ? size : 1);

        if (!t)
                return 0;
        memcpy(t, data, size);
        acpi_check_header(t, size, NULL, 0, NULL, &d);
        smbios_parse(t, size, 3, (size ? t[0] : 0) & 7, &smbios, &sd);

        if (size >= ACPI_HEADER_LEN && size <= (1u << 20)) {
                for (size_t s = 0; s < sizeof(sigs) / sizeof(sigs[0]); s++) {
                        memcpy(t, data, size);
                        patch(t, size, sigs[s]);
                        switch (s) {
                        case 0: acpi_parse_madt(t, size, &madt, &d); break;
                        case 1: acpi_parse_srat(t, size, &srat, &d); break;
                        case 2: acpi_parse_slit(t, size, &slit, &d); break;
                        case 4: {
                                /* a table the check accepts is walked in place by the lookups:
                                 * every processor ID it holds, and one it does not */
                                struct acpi_pptt_cpu c;
                                uint32_t             n = 0;
                                if (acpi_pptt_check(t, size, &n, &d) == ST_OK)
                                        for (uint32_t u = 0; u <= n && u < 64; u++)
                                                acpi_pptt_cpu(t, u, &c);
                                break;
                        }
                        default:
                                if (acpi_parse_hmat(t, size, &hmat, &d) == ST_OK) {
                                        struct acpi_hmat_entry e;

                                        acpi_hmat_find(&hmat, ACPI_HMAT_ACCESS_LATENCY, 0, 0, &e);
                                }
                                break;
                        }
                        /* Every message is NUL-terminated within the array. */
                        if (memchr(d.what, '\0', sizeof(d.what)) == NULL)
                                abort();
                }
        }
        free(t);
        return 0;
}
