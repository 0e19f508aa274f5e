/** @file
 * The network the harness was loaded from, for the firmware build: when the loaded image's
 * device is a NIC that PXE-booted it (no file system there), files named by plat_file_read are
 * fetched from beside the image on the same TFTP server, through the PXE base code the
 * firmware already started and configured by DHCP for the boot.
 * [UEFI-2.10] 24.3 EFI_PXE_BASE_CODE_PROTOCOL: Mode (DhcpAck, ProxyOffer), Mtftp().
 */
#include "boot/uefi/uefi_priv.h"
#include "lib/fmt.h"

#define NET_PATH_MAX 128

static EFI_PXE_BASE_CODE_PROTOCOL *pxe;
static EFI_IP_ADDRESS              server;
static char                        dir[NET_PATH_MAX]; /* the boot file's folder, with '/' */
static char                        source[NET_PATH_MAX + 32];

/* The DHCP packet that named the boot file: a proxy offer where one came (a PXE server
 * beside the DHCP server), else the DHCP ACK. */
static const EFI_PXE_BASE_CODE_DHCPV4_PACKET *boot_packet(const EFI_PXE_BASE_CODE_MODE *m)
{
        if (m->ProxyOfferReceived && m->ProxyOffer.Dhcpv4.BootpBootFile[0])
                return &m->ProxyOffer.Dhcpv4;
        if (m->DhcpAckReceived && m->DhcpAck.Dhcpv4.BootpBootFile[0])
                return &m->DhcpAck.Dhcpv4;
        return NULL;
}

void uefi_net_init(EFI_HANDLE device)
{
        EFI_GUID guid = EFI_PXE_BASE_CODE_PROTOCOL_GUID;
        EFI_PXE_BASE_CODE_PROTOCOL *p = NULL;

        if (!device || EFI_ERROR(uefi_call_wrapper(BS->HandleProtocol, 3, device, &guid,
                                                   (void **)&p)) ||
            !p || !p->Mode || !p->Mode->Started || p->Mode->UsingIpv6)
                return;
        const EFI_PXE_BASE_CODE_DHCPV4_PACKET *d = boot_packet(p->Mode);
        if (!d)
                return;
        char   file[sizeof(d->BootpBootFile) + 1];
        size_t n = 0, slash = 0;
        for (; n < sizeof(d->BootpBootFile) && d->BootpBootFile[n]; n++) {
                file[n] = (char)d->BootpBootFile[n];
                if (file[n] == '/' || file[n] == '\\')
                        slash = n + 1;
        }
        file[n] = 0;
        if (slash >= sizeof(dir))
                return;
        memcpy(dir, file, slash);
        dir[slash] = 0;
        memset(&server, 0, sizeof(server));
        memcpy(server.v4.Addr, d->BootpSiAddr, 4);
        pxe = p;
        fmt_snprintf(source, sizeof(source), "tftp://%u.%u.%u.%u/%s", d->BootpSiAddr[0],
                     d->BootpSiAddr[1], d->BootpSiAddr[2], d->BootpSiAddr[3], file);
}

const char *uefi_net_source(void)
{
        return pxe ? source : NULL;
}

/* The file beside the boot file whose name is the last component of @p path. */
static status_t remote_name(const char *path, char *out, size_t cap)
{
        const char *base = path;

        for (const char *s = path; *s; s++)
                if (*s == '/')
                        base = s + 1;
        if (!*base)
                return ST_BAD_ARG;
        if (strlen(dir) + strlen(base) + 1 > cap)
                return ST_BAD_ARG;
        fmt_snprintf(out, cap, "%s%s", dir, base);
        return ST_OK;
}

status_t uefi_net_read(const char *path, size_t max, char **buf, size_t *len)
{
        char     name[NET_PATH_MAX * 2];
        status_t rc;

        *buf = NULL;
        *len = 0;
        if (!pxe)
                return ST_NOT_FOUND;
        if ((rc = remote_name(path, name, sizeof(name))) != ST_OK)
                return rc;
        char *b = plat_alloc(max + 1);
        if (!b)
                return ST_NO_MEM;
        UINT64     size = max;
        EFI_STATUS st   = uefi_call_wrapper(pxe->Mtftp, 10, pxe, EFI_PXE_BASE_CODE_TFTP_READ_FILE,
                                            b, FALSE, &size, NULL, &server, (UINT8 *)name, NULL,
                                            FALSE);
        if (st == EFI_BUFFER_TOO_SMALL) {
                plat_free(b);
                return ST_NO_SPACE;
        }
        if (EFI_ERROR(st)) {
                plat_free(b);
                /* edk2's Mtftp4 turns a TFTP "file not found" error packet into
                 * EFI_TFTP_ERROR; a server that does not answer is EFI_TIMEOUT. */
                return st == EFI_TFTP_ERROR ? ST_NOT_FOUND : uefi_status(st);
        }
        b[size] = 0;
        *buf    = b;
        *len    = (size_t)size;
        return ST_OK;
}
