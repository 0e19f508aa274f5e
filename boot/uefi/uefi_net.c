/** @file
 * The network the harness was loaded from, for the firmware build: when the loaded image's
 * device is a NIC that PXE-booted it (no file system there), files named by plat_file_read are
 * fetched from beside the image on the same TFTP server, through the PXE base code the
 * firmware already started and configured by DHCP for the boot.
 * [UEFI-2.10] 24.3 EFI_PXE_BASE_CODE_PROTOCOL: Mode (DhcpAck, ProxyOffer), Mtftp().
 */
#include "boot/uefi/uefi_http.h"
#include "boot/uefi/uefi_priv.h"
#include "lib/fmt.h"

#define CONFIG_URL_MAX_FW 128 /* a collector URL, NUL included */

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

/* ---- upload: the firmware's HTTP client ------------------------------------------------ */

static volatile BOOLEAN http_done;

static VOID EFIAPI http_signal(EFI_EVENT e, VOID *ctx)
{
        (void)e;
        *(volatile BOOLEAN *)ctx = TRUE;
}

/* Poll @p http until @p done is set or @p ms milliseconds have passed. */
static bool http_wait(PMUCAL_HTTP_PROTOCOL *http, volatile BOOLEAN *done, unsigned ms)
{
        for (unsigned t = 0; !*done && t < ms; t++) {
                uefi_call_wrapper(http->Poll, 1, http);
                if (!*done)
                        uefi_call_wrapper(BS->Stall, 1, 1000);
        }
        return *done;
}

/* An HTTP service binding: on the device the image came from if it has one, else the first
 * the firmware offers; the NIC's drivers are connected first (OVMF connects only what its
 * boot option needed). */
static PMUCAL_SERVICE_BINDING *http_binding(void)
{
        EFI_GUID    sb_guid = PMUCAL_HTTP_SERVICE_BINDING_GUID;
        EFI_HANDLE *h = NULL;
        UINTN       n = 0;
        PMUCAL_SERVICE_BINDING *sb = NULL;

        if (EFI_ERROR(LibLocateHandle(ByProtocol, &sb_guid, NULL, &n, &h)) || !n) {
                EFI_GUID snp_guid = EFI_SIMPLE_NETWORK_PROTOCOL_GUID;
                EFI_HANDLE *nics = NULL;
                UINTN       k = 0;
                if (!EFI_ERROR(LibLocateHandle(ByProtocol, &snp_guid, NULL, &k, &nics))) {
                        for (UINTN i = 0; i < k; i++)
                                uefi_call_wrapper(BS->ConnectController, 4, nics[i], NULL, NULL,
                                                  TRUE);
                        FreePool(nics);
                }
                h = NULL;
                n = 0;
                if (EFI_ERROR(LibLocateHandle(ByProtocol, &sb_guid, NULL, &n, &h)) || !n)
                        return NULL;
        }
        uefi_call_wrapper(BS->HandleProtocol, 3, h[0], &sb_guid, (void **)&sb);
        FreePool(h);
        return sb;
}

status_t plat_net_post(const char *url, const char *type, const void *body, size_t len,
                       unsigned *http_status, char *reply, size_t reply_cap)
{
        EFI_GUID                http_guid = PMUCAL_HTTP_PROTOCOL_GUID;
        PMUCAL_SERVICE_BINDING *sb = http_binding();
        PMUCAL_HTTP_PROTOCOL   *http = NULL;
        EFI_HANDLE              child = NULL;
        EFI_EVENT               ev = NULL;
        EFI_STATUS              st;
        status_t                rc = ST_IO;
        CHAR16                  wurl[CONFIG_URL_MAX_FW];
        char                    host[CONFIG_URL_MAX_FW], clen[24];
        size_t                  n = strlen(url);

        *http_status = 0;
        if (reply_cap)
                reply[0] = 0;
        if (!sb)
                return ST_UNSUPPORTED;
        if (n + 1 > CONFIG_URL_MAX_FW || strncmp(url, "http://", 7))
                return ST_BAD_ARG;
        for (size_t i = 0; i <= n; i++)
                wurl[i] = (CHAR16)(unsigned char)url[i];
        size_t hl = 0;
        for (const char *p = url + 7; *p && *p != '/'; p++)
                host[hl++] = *p;
        host[hl] = 0;
        fmt_snprintf(clen, sizeof(clen), "%zu", len);

        if (EFI_ERROR(uefi_call_wrapper(sb->CreateChild, 2, sb, &child)))
                return ST_IO;
        if (EFI_ERROR(uefi_call_wrapper(BS->HandleProtocol, 3, child, &http_guid,
                                        (void **)&http)) || !http)
                goto out;

        /* The address the PXE boot got by DHCP where there is one; else the NIC's default
         * (its IP4 configuration policy). */
        PMUCAL_HTTPv4_ACCESS_POINT ap = { .UseDefaultAddress = TRUE };
        if (pxe && pxe->Mode && pxe->Mode->StationIp.v4.Addr[0]) {
                ap.UseDefaultAddress = FALSE;
                memcpy(&ap.LocalAddress, &pxe->Mode->StationIp.v4, 4);
                memcpy(&ap.LocalSubnet, &pxe->Mode->SubnetMask.v4, 4);
        }
        PMUCAL_HTTP_CONFIG_DATA cfg = { .HttpVersion = PmucalHttp11, .TimeOutMillisec = 5000,
                                        .AccessPoint.IPv4Node = &ap };
        st = uefi_call_wrapper(http->Configure, 2, http, &cfg);
        if (EFI_ERROR(st)) {
                rc = uefi_status(st);
                goto out;
        }
        st = uefi_call_wrapper(BS->CreateEvent, 5, EVT_NOTIFY_SIGNAL, TPL_CALLBACK, http_signal,
                               (void *)&http_done, &ev);
        if (EFI_ERROR(st))
                goto out;

        PMUCAL_HTTP_HEADER hdr[] = {
                { (CHAR8 *)"Host", (CHAR8 *)host },
                { (CHAR8 *)"Content-Type", (CHAR8 *)type },
                { (CHAR8 *)"Content-Length", (CHAR8 *)clen },
        };
        PMUCAL_HTTP_REQUEST_DATA req_data = { .Method = PmucalHttpPost, .Url = wurl };
        PMUCAL_HTTP_MESSAGE req = { .Data.Request = &req_data, .HeaderCount = ARRAY_SIZE(hdr),
                                    .Headers = hdr, .BodyLength = len, .Body = (void *)body };
        PMUCAL_HTTP_TOKEN tok = { .Event = ev, .Status = EFI_NOT_READY, .Message = &req };
        http_done = FALSE;
        st = uefi_call_wrapper(http->Request, 2, http, &tok);
        if (EFI_ERROR(st) || !http_wait(http, &http_done, 10000) || EFI_ERROR(tok.Status)) {
                if (!EFI_ERROR(st) && !http_done)
                        uefi_call_wrapper(http->Cancel, 2, http, &tok);
                rc = EFI_ERROR(st) ? uefi_status(st) : http_done ? uefi_status(tok.Status)
                                                                   : ST_TIMEOUT;
                goto out;
        }

        PMUCAL_HTTP_RESPONSE_DATA resp_data = { 0 };
        char body_in[512];
        PMUCAL_HTTP_MESSAGE resp = { .Data.Response = &resp_data, .BodyLength = sizeof(body_in) - 1,
                                     .Body = body_in };
        tok = (PMUCAL_HTTP_TOKEN){ .Event = ev, .Status = EFI_NOT_READY, .Message = &resp };
        http_done = FALSE;
        st = uefi_call_wrapper(http->Response, 2, http, &tok);
        if (EFI_ERROR(st) || !http_wait(http, &http_done, 10000) ||
            (EFI_ERROR(tok.Status) && tok.Status != EFI_HTTP_ERROR)) {
                if (!EFI_ERROR(st) && !http_done)
                        uefi_call_wrapper(http->Cancel, 2, http, &tok);
                rc = EFI_ERROR(st) ? uefi_status(st) : http_done ? uefi_status(tok.Status)
                                                                   : ST_TIMEOUT;
                goto out;
        }
        if (resp.Headers)
                FreePool(resp.Headers);
        *http_status = resp_data.StatusCode < ARRAY_SIZE(pmucal_http_codes)
                               ? pmucal_http_codes[resp_data.StatusCode] : 0;
        if (reply_cap) {
                size_t got = resp.BodyLength < reply_cap - 1 ? resp.BodyLength : reply_cap - 1;
                memcpy(reply, body_in, got);
                reply[got] = 0;
        }
        rc = ST_OK;
out:
        if (http)
                uefi_call_wrapper(http->Configure, 2, http, NULL);
        if (ev)
                uefi_call_wrapper(BS->CloseEvent, 1, ev);
        if (child)
                uefi_call_wrapper(sb->DestroyChild, 2, sb, child);
        return rc;
}
