/** @file
 * Finding ACPI tables and the SMBIOS structure table through the UEFI configuration table.
 * Only the table directories are checked here (enough to walk them safely); the tables
 * themselves are validated by boot/acpi.c and boot/smbios.c.
 */
#include "boot/uefi/uefi_priv.h"

static void *config_table(EFI_GUID guid)
{
        for (UINTN i = 0; i < ST->NumberOfTableEntries; i++)
                if (!CompareGuid(&ST->ConfigurationTable[i].VendorGuid, &guid))
                        return ST->ConfigurationTable[i].VendorTable;
        return NULL;
}

static uint32_t rd32(const void *p)
{
        uint32_t v;
        memcpy(&v, p, 4);
        return v;
}

static uint64_t rd64(const void *p)
{
        uint64_t v;
        memcpy(&v, p, 8);
        return v;
}

/* [ACPI-6.5] §5.2.5.3 RSDP: signature "RSD PTR ", revision at 15, RsdtAddress at 16,
 * Length at 20, XsdtAddress at 24 (revision >= 2). */
static const void *acpi_table(const char sig[4], unsigned n)
{
        EFI_GUID             g20  = ACPI_20_TABLE_GUID;
        EFI_GUID             g10  = ACPI_TABLE_GUID;
        const unsigned char *rsdp = config_table(g20);

        if (!rsdp)
                rsdp = config_table(g10);
        if (!rsdp || memcmp(rsdp, "RSD PTR ", 8))
                return NULL;

        const unsigned char *dir;
        unsigned             entry;
        if (rsdp[15] >= 2 && rd64(rsdp + 24)) {
                dir   = (const void *)(uintptr_t)rd64(rsdp + 24);
                entry = 8;
        } else {
                dir   = (const void *)(uintptr_t)rd32(rsdp + 16);
                entry = 4;
        }
        if (!dir)
                return NULL;
        uint32_t len = rd32(dir + 4);
        if (len < 36 || len > 64 * 1024)
                return NULL;

        /* The FADT points at the DSDT and FACS instead of listing them in the directory. */
        bool want_dsdt = !memcmp(sig, "DSDT", 4);
        for (uint32_t off = 36; off + entry <= len; off += entry) {
                uint64_t             a = entry == 8 ? rd64(dir + off) : rd32(dir + off);
                const unsigned char *t = (const void *)(uintptr_t)a;
                if (!t)
                        continue;
                if (want_dsdt && !memcmp(t, "FACP", 4)) {
                        uint64_t x = rd32(t + 4) >= 148 ? rd64(t + 140) : 0;
                        const void *d = (const void *)(uintptr_t)(x ? x : rd32(t + 40));
                        if (d && n-- == 0)
                                return d;
                        continue;
                }
                if (!memcmp(t, sig, 4) && n-- == 0)
                        return t;
        }
        return NULL;
}

/* [SMBIOS-3.6] §5.2.2 64-bit entry point "_SM3_": version at 7/8, max table size at 12,
 * table address at 16. §5.2.1 32-bit "_SM_": version at 6/7, "_DMI_" at 16, table length
 * at 22, address at 24. */
static const void *smbios_table(size_t *len, unsigned *major, unsigned *minor)
{
        EFI_GUID             g3 = SMBIOS3_TABLE_GUID;
        EFI_GUID             g2 = SMBIOS_TABLE_GUID;
        const unsigned char *ep = config_table(g3);

        if (ep && !memcmp(ep, "_SM3_", 5)) {
                *major = ep[7];
                *minor = ep[8];
                *len   = rd32(ep + 12);
                return (const void *)(uintptr_t)rd64(ep + 16);
        }
        ep = config_table(g2);
        if (ep && !memcmp(ep, "_SM_", 4) && !memcmp(ep + 16, "_DMI_", 5)) {
                *major = ep[6];
                *minor = ep[7];
                *len   = (uint16_t)(ep[22] | ep[23] << 8);
                return (const void *)(uintptr_t)rd32(ep + 24);
        }
        return NULL;
}

status_t plat_fw_table(enum plat_fw_kind kind, const char sig[4], unsigned n,
                       struct plat_fw_table *out)
{
        *out = (struct plat_fw_table){ 0 };
        if (kind == PLAT_FW_SMBIOS)
                out->data = smbios_table(&out->len, &out->major, &out->minor);
        else if (kind == PLAT_FW_ACPI && sig && (out->data = acpi_table(sig, n)) != NULL)
                out->len = rd32(out->data + 4); /* [ACPI-6.5] 5.2.6: Length at offset 4 */
        else if (kind != PLAT_FW_ACPI)
                return ST_BAD_ARG;
        if (!out->data)
                *out = (struct plat_fw_table){ 0 };
        return out->data ? ST_OK : ST_NOT_FOUND;
}
