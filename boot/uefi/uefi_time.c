/** @file
 * Firmware timers, clock and identity for the firmware build, the same on every
 * architecture: plat_stall_us, plat_wallclock, plat_info (firmware name, image base).
 */
#include "boot/uefi/uefi_priv.h"

#include "lib/fmt.h"

void plat_stall_us(uint32_t us)
{
        uefi_call_wrapper(BS->Stall, 1, us);
}

status_t plat_wallclock(struct plat_time *out)
{
        EFI_TIME t;

        *out = (struct plat_time){ 0 };
        EFI_STATUS st = uefi_call_wrapper(RT->GetTime, 2, &t, NULL);
        if (EFI_ERROR(st))
                return uefi_status(st);
        *out = (struct plat_time){ .year = t.Year, .month = t.Month, .day = t.Day,
                                   .hour = t.Hour, .minute = t.Minute, .second = t.Second,
                                   .valid = true };
        /* UEFI GetTime() (spec section "Time Services"): TimeZone is the time's offset from
         * UTC in minutes, -1440..1440, or EFI_UNSPECIFIED_TIMEZONE (0x07FF): local time, zone
         * unknown (what OVMF returns unless an OS set one). The sign is read as
         * local = UTC + TimeZone; spec revisions have disagreed on it, which is why the
         * table names this case ("firmware-offset") apart from the others. */
        if (t.TimeZone != EFI_UNSPECIFIED_TIMEZONE && t.TimeZone >= -1440 && t.TimeZone <= 1440) {
                out->zone           = PLAT_ZONE_OFFSET;
                out->utc_offset_min = t.TimeZone;
        }
        return ST_OK;
}

uint64_t uefi_image_base(void)
{
        EFI_GUID          guid = LOADED_IMAGE_PROTOCOL;
        EFI_LOADED_IMAGE *li   = NULL;

        if (EFI_ERROR(uefi_call_wrapper(BS->HandleProtocol, 3, uefi_image, &guid, (void **)&li)) ||
            !li)
                return 0;
        return (uint64_t)(uintptr_t)li->ImageBase;
}

static const char *firmware_name(void)
{
        static char name[96];
        char        vendor[48];
        size_t      i = 0;

        for (const CHAR16 *w = ST->FirmwareVendor; w && *w && i < sizeof(vendor) - 1; w++)
                vendor[i++] = *w < 0x80 ? (char)*w : '?';
        vendor[i] = 0;
        fmt_snprintf(name, sizeof(name), "UEFI %u.%u, %s firmware rev 0x%x",
                     ST->Hdr.Revision >> 16, (ST->Hdr.Revision & 0xffff) / 10, vendor,
                     ST->FirmwareRevision);
        return name;
}

/* One byte of a UEFI global variable (EFI_GLOBAL_VARIABLE GUID); -1 when it cannot be read. */
static int global_u8(CHAR16 *name)
{
        EFI_GUID guid = EFI_GLOBAL_VARIABLE;
        UINT8    v    = 0;
        UINTN    size = sizeof(v);

        if (EFI_ERROR(uefi_call_wrapper(RT->GetVariable, 5, name, &guid, NULL, &size, &v)) ||
            size != sizeof(v))
                return -1;
        return v;
}

const struct plat_info *plat_info(void)
{
        static struct plat_info info;

        info.name       = firmware_name();
        info.secure_boot = plat_secure_boot_of(global_u8(L"SecureBoot"), global_u8(L"SetupMode"));
        info.image_base = uefi_image_base();
        info.cpus_via      = uefi_mp_method();
        info.cpus_unlisted = !info.cpus_via;
        info.volume        = uefi_boot_volume();
        info.net_source    = uefi_net_source();
        return &info;
}
