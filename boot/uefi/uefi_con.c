/** @file
 * Console output for the firmware build: the UEFI text console (ConOut) and every serial port
 * the firmware's own terminal driver does not already mirror ConOut to, so a headless server
 * and a QEMU log both get every line, once.
 */
#include "boot/uefi/uefi_priv.h"

#define MAX_SERIAL 4
#define CHUNK      128

static EFI_SERIAL_IO_PROTOCOL *serial[MAX_SERIAL];
static unsigned                n_serial;

/* A serial port opened BY_DRIVER belongs to the firmware's terminal driver: ConOut already
 * reaches it (OVMF, and servers with console redirection on). Writing to it too would print
 * every line twice. */
static bool used_by_terminal(EFI_HANDLE h, EFI_GUID *guid)
{
        EFI_OPEN_PROTOCOL_INFORMATION_ENTRY *info = NULL;
        UINTN                                n    = 0;
        bool                                 used = false;

        if (EFI_ERROR(uefi_call_wrapper(BS->OpenProtocolInformation, 4, h, guid, &info, &n)))
                return false;
        for (UINTN i = 0; i < n; i++)
                if (info[i].Attributes & EFI_OPEN_PROTOCOL_BY_DRIVER)
                        used = true;
        uefi_call_wrapper(BS->FreePool, 1, info);
        return used;
}

void uefi_con_init(bool want_serial)
{
        EFI_GUID    guid    = SERIAL_IO_PROTOCOL;
        EFI_HANDLE *handles = NULL;
        UINTN       n       = 0;

        n_serial = 0;
        if (!want_serial)
                return;
        if (EFI_ERROR(uefi_call_wrapper(BS->LocateHandleBuffer, 5, ByProtocol, &guid, NULL, &n,
                                        &handles)))
                return;
        for (UINTN i = 0; i < n && n_serial < MAX_SERIAL; i++) {
                EFI_SERIAL_IO_PROTOCOL *sio;
                if (used_by_terminal(handles[i], &guid))
                        continue;
                if (!EFI_ERROR(uefi_call_wrapper(BS->HandleProtocol, 3, handles[i], &guid,
                                                 (void **)&sio)))
                        serial[n_serial++] = sio;
        }
        uefi_call_wrapper(BS->FreePool, 1, handles);
}

static void serial_write(const char *s, size_t n)
{
        for (unsigned p = 0; p < n_serial; p++) {
                size_t start = 0;
                for (size_t i = 0; i <= n; i++) {
                        if (i < n && s[i] != '\n')
                                continue;
                        UINTN len = i - start;
                        if (len)
                                uefi_call_wrapper(serial[p]->Write, 3, serial[p], &len,
                                                  (void *)(s + start));
                        if (i < n) {
                                UINTN two = 2;
                                uefi_call_wrapper(serial[p]->Write, 3, serial[p], &two,
                                                  (void *)"\r\n");
                        }
                        start = i + 1;
                }
        }
}

void plat_console_write(const char *s, size_t n)
{
        CHAR16 buf[CHUNK + 3];
        size_t k = 0;

        for (size_t i = 0; i < n; i++) {
                unsigned char c = (unsigned char)s[i];
                if (c == '\n')
                        buf[k++] = L'\r';
                buf[k++] = (c >= 0x20 && c < 0x7f) || c == '\n' || c == '\t' ? c : L'?';
                if (k >= CHUNK) {
                        buf[k] = 0;
                        uefi_call_wrapper(ST->ConOut->OutputString, 2, ST->ConOut, buf);
                        k = 0;
                }
        }
        if (k) {
                buf[k] = 0;
                uefi_call_wrapper(ST->ConOut->OutputString, 2, ST->ConOut, buf);
        }
        serial_write(s, n);
}

void uefi_con_emergency(const char *s)
{
        plat_console_write(s, strlen(s));
}

void plat_console_serial(bool on)
{
        uefi_con_init(on);
}
