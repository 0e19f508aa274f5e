/** @file Decoded ACPI tables as text lines (see acpi_canon.h). */
#include "tests/acpi_canon.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct acpi_madt madt;
static struct acpi_srat srat;
static struct acpi_slit slit;
static struct acpi_hmat hmat;

__attribute__((format(printf, 3, 4)))
static void put(char *out, size_t cap, const char *fmt, ...)
{
        size_t  n = strlen(out);
        va_list ap;

        if (n + 1 >= cap)
                return;
        va_start(ap, fmt);
        vsnprintf(out + n, cap - n, fmt, ap);
        va_end(ap);
}

static void canon_madt(char *out, size_t cap)
{
        for (uint32_t i = 0; i < madt.n_cpus; i++)
                put(out, cap, "APIC processor id=0x%x uid=0x%x enabled=%d x2apic=%d\n",
                    madt.cpu[i].apic_id, madt.cpu[i].acpi_uid, madt.cpu[i].enabled,
                    madt.cpu[i].x2apic);
        put(out, cap, "APIC processors %u enabled %u\n", madt.n_cpus, madt.n_enabled);
}

static void canon_srat(char *out, size_t cap)
{
        for (uint32_t i = 0; i < srat.n_cpus; i++)
                put(out, cap, "SRAT cpu apic=0x%x pd=%u enabled=%d\n", srat.cpu[i].apic_id,
                    srat.cpu[i].node, srat.cpu[i].enabled);
        for (uint32_t i = 0; i < srat.n_mem; i++)
                put(out, cap, "SRAT mem pd=%u base=0x%llx len=0x%llx flags=0x%x\n",
                    srat.mem[i].node, (unsigned long long)srat.mem[i].base,
                    (unsigned long long)srat.mem[i].len, srat.mem[i].flags);
        for (uint32_t k = 0; k < srat.n_nodes; k++) {
                uint64_t present = 0;

                for (uint32_t i = 0; i < srat.n_mem; i++)
                        if (srat.mem[i].node == srat.node[k] && acpi_srat_mem_present(&srat.mem[i]))
                                present += srat.mem[i].len;
                put(out, cap, "SRAT node pd=%u memory=0x%llx\n", srat.node[k],
                    (unsigned long long)present);
        }
}

static void canon_slit(char *out, size_t cap)
{
        put(out, cap, "SLIT localities %u\n", slit.n);
        for (uint32_t i = 0; i < slit.n; i++) {
                put(out, cap, "SLIT row %u:", i);
                for (uint32_t j = 0; j < slit.n; j++)
                        put(out, cap, " %u", slit.dist[i][j]);
                put(out, cap, "\n");
        }
}

static void canon_hmat(char *out, size_t cap)
{
        for (uint32_t i = 0; i < hmat.n_domains; i++)
                put(out, cap, "HMAT domain memory=%u initiator=%u\n", hmat.domain[i].memory_pd,
                    hmat.domain[i].initiator_valid ? hmat.domain[i].initiator_pd : 0xffffffffu);
        for (uint32_t i = 0; i < hmat.n_entries; i++)
                if (hmat.entry[i].state == ACPI_HMAT_VALUE)
                        put(out, cap, "HMAT entry type=%u hierarchy=%u %u->%u value=%llu\n",
                            hmat.entry[i].data_type, hmat.entry[i].hierarchy,
                            hmat.entry[i].initiator_pd, hmat.entry[i].target_pd,
                            (unsigned long long)hmat.entry[i].value);
}

status_t acpi_canon(const uint8_t *t, size_t len, char *out, size_t cap)
{
        struct acpi_diag d = { 0 };
        char             sig[5] = { 0 };
        status_t         st;

        if (!cap)
                return ST_BAD_ARG;
        out[0] = '\0';
        if (len < 4)
                return ST_BAD_DATA;
        memcpy(sig, t, 4);
        if (!strcmp(sig, "APIC"))
                st = acpi_parse_madt(t, len, &madt, &d);
        else if (!strcmp(sig, "SRAT"))
                st = acpi_parse_srat(t, len, &srat, &d);
        else if (!strcmp(sig, "SLIT"))
                st = acpi_parse_slit(t, len, &slit, &d);
        else if (!strcmp(sig, "HMAT"))
                st = acpi_parse_hmat(t, len, &hmat, &d);
        else
                return ST_UNSUPPORTED;
        if (st != ST_OK) {
                put(out, cap, "%s rejected: %s\n", sig, d.what);
                return st;
        }
        if (!strcmp(sig, "APIC"))
                canon_madt(out, cap);
        else if (!strcmp(sig, "SRAT"))
                canon_srat(out, cap);
        else if (!strcmp(sig, "SLIT"))
                canon_slit(out, cap);
        else
                canon_hmat(out, cap);
        return ST_OK;
}
