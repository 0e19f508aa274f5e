/** @file
 * The network the harness was loaded from, for the firmware build: when the loaded image's
 * device is a NIC that PXE-booted it (no file system there), files named by plat_file_read are
 * fetched from beside the image on the same TFTP server, through the PXE base code the
 * firmware already started and configured by DHCP for the boot; when it was HTTP-booted (a
 * URI node in its device path), from beside the image's URL with an HTTP GET. And the upload
 * (plat_net_post) through the firmware's HTTP protocol.
 * [UEFI-2.10] 24.3 EFI_PXE_BASE_CODE_PROTOCOL: Mode (DhcpAck, ProxyOffer), Mtftp();
 * 10.3.4.23 URI device path node (messaging, sub-type 24); 29.6 EFI HTTP protocols.
 */
#include "boot/devpath_match.h"
#include "boot/uefi/uefi_http.h"
#include "boot/uefi/uefi_priv.h"
#include "lib/fmt.h"
#include "lib/log.h"

#define CONFIG_URL_MAX_FW 256 /* a URL to post to or get, NUL included */

#define NET_PATH_MAX 128

static EFI_PXE_BASE_CODE_PROTOCOL *pxe;
static EFI_IP_ADDRESS              server;
static char                        dir[NET_PATH_MAX]; /* the boot file's folder, with '/' */
static char                        source[NET_PATH_MAX + 32];
static bool                        http_boot; /* dir is the image URL's folder */
static bool                        have_ip;   /* the address the boot got by DHCP: */
static EFI_IPv4_ADDRESS            boot_ip, boot_mask;
static EFI_HANDLE                  boot_device; /* the NIC handle the image was loaded from */

static status_t http_exchange(bool post, const char *url, const char *type, const void *body,
                              size_t len, unsigned *http_status, char *reply, size_t reply_cap,
                              size_t *reply_len);

/* [UEFI-2.10] 10.3.4.23: an HTTP boot's device path ends in a URI node holding the URL the
 * image came from (not NUL-terminated). */
static bool uri_of(EFI_HANDLE device, char *out, size_t cap)
{
        EFI_DEVICE_PATH *dp = DevicePathFromHandle(device);

        for (; dp && !IsDevicePathEnd(dp); dp = NextDevicePathNode(dp)) {
                size_t n = DevicePathNodeLength(dp);
                if (n < 4)
                        return false;
                /* [UEFI-2.10] 10.3.4.12 IPv4 node (sub-type 12, 27 bytes): LocalIpAddress at
                 * 4, SubnetMask at 23; HTTP boot records the DHCP address there. */
                if (DevicePathType(dp) == MESSAGING_DEVICE_PATH && DevicePathSubType(dp) == 12 &&
                    n >= 27) {
                        memcpy(&boot_ip, (const UINT8 *)dp + 4, 4);
                        memcpy(&boot_mask, (const UINT8 *)dp + 23, 4);
                        have_ip = boot_ip.Addr[0] != 0;
                }
                if (DevicePathType(dp) != MESSAGING_DEVICE_PATH || DevicePathSubType(dp) != 24)
                        continue;
                n -= 4;
                if (n == 0 || n + 1 > cap)
                        return false;
                memcpy(out, (const UINT8 *)dp + 4, n);
                out[n] = 0;
                return !strncmp(out, "http://", 7);
        }
        return false;
}

static void http_boot_init(EFI_HANDLE device)
{
        char   url[NET_PATH_MAX];
        size_t slash = 0;

        if (!uri_of(device, url, sizeof(url)))
                return;
        for (size_t i = 7; url[i]; i++)
                if (url[i] == '/')
                        slash = i + 1;
        if (!slash)
                return;
        memcpy(dir, url, slash);
        dir[slash] = 0;
        fmt_snprintf(source, sizeof(source), "%s", url);
        http_boot = true;
}

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

        if (!device)
                return;
        boot_device = device;
        if (EFI_ERROR(uefi_call_wrapper(BS->HandleProtocol, 3, device, &guid, (void **)&p)) ||
            !p || !p->Mode || !p->Mode->Started || p->Mode->UsingIpv6) {
                http_boot_init(device);
                return;
        }
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
        return pxe || http_boot ? source : NULL;
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
        if (!pxe && !http_boot)
                return ST_NOT_FOUND;
        if ((rc = remote_name(path, name, sizeof(name))) != ST_OK)
                return rc;
        char *b = plat_alloc(max + 1);
        if (!b)
                return ST_NO_MEM;
        if (http_boot) {
                unsigned code = 0;
                size_t   got  = 0;
                rc = http_exchange(false, name, NULL, NULL, 0, &code, b, max + 1, &got);
                if (rc == ST_OK && code != 200)
                        rc = code == 404 ? ST_NOT_FOUND : ST_IO;
                if (rc == ST_OK && got > max)
                        rc = ST_NO_SPACE;
                if (rc != ST_OK) {
                        plat_free(b);
                        return rc;
                }
                b[got] = 0;
                *buf   = b;
                *len   = got;
                return ST_OK;
        }
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

/* Connect the drivers of every PCI network controller (base class 02h of the class code at
 * configuration offset 0Bh): after a boot from a disk the firmware has connected none (OVMF
 * connects only what its boot option needed), so no NIC has a simple network protocol yet.
 * Called for the upload, after the measurement. */
static void connect_pci_nics(void)
{
        EFI_GUID    pci_guid = EFI_PCI_IO_PROTOCOL_GUID;
        EFI_HANDLE *h = NULL;
        UINTN       n = 0;

        if (EFI_ERROR(LibLocateHandle(ByProtocol, &pci_guid, NULL, &n, &h)))
                return;
        for (UINTN i = 0; i < n; i++) {
                EFI_PCI_IO_PROTOCOL *io = NULL;
                UINT8                base_class = 0;

                if (EFI_ERROR(uefi_call_wrapper(BS->HandleProtocol, 3, h[i], &pci_guid, (void **)&io)) ||
                    EFI_ERROR(uefi_call_wrapper(io->Pci.Read, 5, io, EfiPciIoWidthUint8, 0x0b, 1,
                                                &base_class)) || base_class != 0x02)
                        continue;
                uefi_call_wrapper(BS->ConnectController, 4, h[i], NULL, NULL, TRUE);
        }
        FreePool(h);
}

#define NIC_CANDIDATES_MAX 16 /* handles of one protocol compared with the image's NIC */
#define DEVPATH_NODES_MAX  64 /* nodes read of a device path before giving up on it */

/* Of the @p n handles @p h offering @p what, the one on the NIC the image was loaded from:
 * its device path agrees with the image's device handle's up to and including the MAC
 * address node (devpath_match.h). Else the first, said on the console (once per @p said)
 * when the image came from a NIC or there was a choice. */
static EFI_HANDLE boot_nic_handle(EFI_HANDLE *h, UINTN n, const char *what, bool *said)
{
        const void *cand[NIC_CANDIDATES_MAX];
        size_t      m = n < NIC_CANDIDATES_MAX ? n : NIC_CANDIDATES_MAX;
        const void *image = boot_device ? DevicePathFromHandle(boot_device) : NULL;

        for (size_t i = 0; i < m; i++)
                cand[i] = DevicePathFromHandle(h[i]);
        int k = devpath_pick_nic(image, cand, m, DEVPATH_NODES_MAX);
        if (k >= 0)
                return h[k];
        if ((boot_device || n > 1) && !*said) {
                *said = true;
                log_info("net: %s: none on the NIC the image came from; using the first of %u",
                         what, (unsigned)n);
        }
        return h[0];
}

/* An HTTP service binding: on the NIC the image came from if it has one, else the first
 * the firmware offers (boot_nic_handle); the NIC's drivers are connected first (OVMF connects only what its
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
                connect_pci_nics();
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
        static bool said;
        uefi_call_wrapper(BS->HandleProtocol, 3, boot_nic_handle(h, n, "HTTP service", &said),
                          &sb_guid, (void **)&sb);
        FreePool(h);
        return sb;
}

/* The IPv4 address of the NIC the image came from (else the first) with an IPv4
 * configuration (boot_nic_handle), after asking for one by DHCP
 * when it has none: after a boot from a disk nothing has configured the NIC, whose policy is
 * static with no address in OVMF, so an HTTP child on its default address cannot connect.
 * The firmware keeps a policy set this way (a setup screen shows it as DHCP enabled). Waits
 * up to @p ms milliseconds for the lease; ST_TIMEOUT without one. */
static status_t ipv4_address(unsigned ms)
{
        EFI_GUID                    guid = PMUCAL_IP4_CONFIG2_PROTOCOL_GUID;
        EFI_HANDLE                 *h = NULL;
        UINTN                       n = 0;
        PMUCAL_IP4_CONFIG2_PROTOCOL *cfg = NULL;
        UINT64                      info_buf[64]; /* the interface info and its route table */
        PMUCAL_IP4_CONFIG2_INTERFACE_INFO *info = (void *)info_buf;

        if (EFI_ERROR(LibLocateHandle(ByProtocol, &guid, NULL, &n, &h)) || !n)
                return ST_UNSUPPORTED;
        static bool said;
        uefi_call_wrapper(BS->HandleProtocol, 3, boot_nic_handle(h, n, "IPv4 configuration", &said),
                          &guid, (void **)&cfg);
        FreePool(h);
        if (!cfg)
                return ST_UNSUPPORTED;
        for (unsigned t = 0; t <= ms; t += 10) {
                UINTN size = sizeof(info_buf);

                if (!EFI_ERROR(uefi_call_wrapper(cfg->GetData, 4, cfg,
                                                 PmucalIp4Config2DataTypeInterfaceInfo, &size,
                                                 info_buf)) &&
                    (info->StationAddress.Addr[0] | info->StationAddress.Addr[1] |
                     info->StationAddress.Addr[2] | info->StationAddress.Addr[3]))
                        return ST_OK;
                if (t == 0) {
                        PMUCAL_IP4_CONFIG2_POLICY pol = PmucalIp4Config2PolicyStatic;

                        size = sizeof(pol);
                        uefi_call_wrapper(cfg->GetData, 4, cfg, PmucalIp4Config2DataTypePolicy,
                                          &size, &pol);
                        if (pol != PmucalIp4Config2PolicyDhcp) {
                                pol = PmucalIp4Config2PolicyDhcp;
                                uefi_call_wrapper(cfg->SetData, 4, cfg,
                                                  PmucalIp4Config2DataTypePolicy, sizeof(pol), &pol);
                        }
                }
                uefi_call_wrapper(BS->Stall, 1, 10000);
        }
        return ST_TIMEOUT;
}

status_t plat_net_post(const char *url, const char *type, const void *body, size_t len,
                       unsigned *http_status, char *reply, size_t reply_cap)
{
        size_t   got = 0;
        status_t rc  = ST_BAD_ARG;

        if (reply_cap)
                reply[0] = 0;
        if (reply_cap)
                rc = http_exchange(true, url, type, body, len, http_status, reply,
                                   reply_cap - 1, &got);
        if (reply_cap)
                reply[got < reply_cap ? got : reply_cap - 1] = 0;
        return rc;
}

/* The Content-Length of a reply's headers; (size_t)-1 when absent. */
static size_t content_length(const PMUCAL_HTTP_MESSAGE *m)
{
        for (UINTN i = 0; i < m->HeaderCount; i++) {
                const char *k = (const char *)m->Headers[i].FieldName;
                const char *v = (const char *)m->Headers[i].FieldValue;
                if (!k || !v || strlen(k) != 14)
                        continue;
                bool same = true;
                for (size_t j = 0; j < 14 && same; j++)
                        same = (k[j] | 0x20) == ("content-length"[j] | 0x20);
                if (!same)
                        continue;
                size_t n = 0;
                for (; *v >= '0' && *v <= '9'; v++)
                        n = n * 10 + (size_t)(*v - '0');
                return n;
        }
        return (size_t)-1;
}

/* "http://HOST/..." as the CHAR16 URL the protocol takes (@p wurl) and its HOST for the Host
 * header (@p host); both CONFIG_URL_MAX_FW long. ST_BAD_ARG for a longer or other URL. */
static status_t http_url(const char *url, CHAR16 *wurl, char *host)
{
        size_t n = strlen(url), hl = 0;

        if (n + 1 > CONFIG_URL_MAX_FW || strncmp(url, "http://", 7))
                return ST_BAD_ARG;
        for (size_t i = 0; i <= n; i++)
                wurl[i] = (CHAR16)(unsigned char)url[i];
        for (const char *p = url + 7; *p && *p != '/'; p++)
                host[hl++] = *p;
        host[hl] = 0;
        return ST_OK;
}

/* Configure the HTTP child @p http on the address the PXE boot got by DHCP where there is
 * one, an HTTP boot's address (from its device path), else the NIC's default (its IP4
 * configuration policy, waited for up to 10 s). */
static status_t http_configure(PMUCAL_HTTP_PROTOCOL *http)
{
        PMUCAL_HTTPv4_ACCESS_POINT ap = { .UseDefaultAddress = TRUE };
        EFI_STATUS                 st;
        status_t                   rc;

        if (pxe && pxe->Mode && pxe->Mode->StationIp.v4.Addr[0]) {
                ap.UseDefaultAddress = FALSE;
                memcpy(&ap.LocalAddress, &pxe->Mode->StationIp.v4, 4);
                memcpy(&ap.LocalSubnet, &pxe->Mode->SubnetMask.v4, 4);
        } else if (have_ip) {
                ap.UseDefaultAddress = FALSE;
                ap.LocalAddress      = boot_ip;
                ap.LocalSubnet       = boot_mask;
        } else if ((rc = ipv4_address(10000)) != ST_OK) {
                return rc;
        }
        PMUCAL_HTTP_CONFIG_DATA cfg = { .HttpVersion = PmucalHttp11, .TimeOutMillisec = 5000,
                                        .AccessPoint.IPv4Node = &ap };
        st = uefi_call_wrapper(http->Configure, 2, http, &cfg);
        return EFI_ERROR(st) ? uefi_status(st) : ST_OK;
}

/* One Request() (@p response false) or Response() call with token @p tok, waited for up to
 * 10 s and cancelled when it did not finish. A response the driver completes with
 * EFI_HTTP_ERROR (an HTTP error status) is a reply like any other. */
static status_t http_call(PMUCAL_HTTP_PROTOCOL *http, bool response, PMUCAL_HTTP_TOKEN *tok)
{
        EFI_STATUS st;

        http_done = FALSE;
        st = response ? uefi_call_wrapper(http->Response, 2, http, tok)
                      : uefi_call_wrapper(http->Request, 2, http, tok);
        if (!EFI_ERROR(st) && http_wait(http, &http_done, 10000) &&
            (!EFI_ERROR(tok->Status) || (response && tok->Status == EFI_HTTP_ERROR)))
                return ST_OK;
        if (!EFI_ERROR(st) && !http_done)
                uefi_call_wrapper(http->Cancel, 2, http, tok);
        return EFI_ERROR(st) ? uefi_status(st) : http_done ? uefi_status(tok->Status) : ST_TIMEOUT;
}

/* Send the request: a POST of @p len bytes of @p body (Content-Type @p type) or a GET of
 * @p wurl on @p host, signalled through @p ev. */
static status_t http_send(PMUCAL_HTTP_PROTOCOL *http, EFI_EVENT ev, bool post, CHAR16 *wurl,
                          const char *host, const char *type, const void *body, size_t len)
{
        char clen[24];

        fmt_snprintf(clen, sizeof(clen), "%zu", len);
        PMUCAL_HTTP_HEADER hdr[] = {
                { (CHAR8 *)"Host", (CHAR8 *)host },
                { (CHAR8 *)"Content-Type", (CHAR8 *)type },
                { (CHAR8 *)"Content-Length", (CHAR8 *)clen },
        };
        PMUCAL_HTTP_REQUEST_DATA req_data = { .Method = post ? PmucalHttpPost : PmucalHttpGet,
                                              .Url = wurl };
        PMUCAL_HTTP_MESSAGE req = { .Data.Request = &req_data,
                                    .HeaderCount = post ? ARRAY_SIZE(hdr) : 1, .Headers = hdr,
                                    .BodyLength = post ? len : 0,
                                    .Body = post ? (void *)body : NULL };
        PMUCAL_HTTP_TOKEN tok = { .Event = ev, .Status = EFI_NOT_READY, .Message = &req };

        return http_call(http, false, &tok);
}

/* Receive the reply: its status in @p *http_status and up to @p cap bytes of its body in
 * @p out (*@p got of them), the rest of a body that came in more than one piece fetched by
 * further Response() calls without response data ([UEFI-2.10] EFI_HTTP_PROTOCOL.Response()). */
static status_t http_receive(PMUCAL_HTTP_PROTOCOL *http, EFI_EVENT ev, unsigned *http_status,
                             char *out, size_t cap, size_t *got)
{
        PMUCAL_HTTP_RESPONSE_DATA resp_data = { 0 };
        PMUCAL_HTTP_MESSAGE resp = { .Data.Response = &resp_data, .BodyLength = cap,
                                     .Body = out };
        PMUCAL_HTTP_TOKEN tok = { .Event = ev, .Status = EFI_NOT_READY, .Message = &resp };
        EFI_STATUS        st;
        status_t          rc;

        if ((rc = http_call(http, true, &tok)) != ST_OK)
                return rc;
        size_t want = content_length(&resp);
        if (resp.Headers)
                FreePool(resp.Headers);
        *http_status = resp_data.StatusCode < ARRAY_SIZE(pmucal_http_codes)
                               ? pmucal_http_codes[resp_data.StatusCode] : 0;
        *got = resp.BodyLength <= cap ? resp.BodyLength : cap;
        for (unsigned k = 0; want != (size_t)-1 && *got < want && *got < cap && k < 256; k++) {
                resp = (PMUCAL_HTTP_MESSAGE){ .BodyLength = cap - *got, .Body = out + *got };
                tok  = (PMUCAL_HTTP_TOKEN){ .Event = ev, .Status = EFI_NOT_READY,
                                            .Message = &resp };
                http_done = FALSE;
                st = uefi_call_wrapper(http->Response, 2, http, &tok);
                if (EFI_ERROR(st) || !http_wait(http, &http_done, 10000) ||
                    EFI_ERROR(tok.Status) || !resp.BodyLength)
                        break;
                *got += resp.BodyLength;
        }
        return ST_OK;
}

/* One request: a POST of @p body (Content-Type @p type) or a GET, and its reply's status and
 * up to @p cap bytes of its body in @p out (*@p got of them), through a child of the HTTP
 * service binding on the boot NIC, destroyed afterwards. */
static status_t http_exchange(bool post, const char *url, const char *type, const void *body,
                              size_t len, unsigned *http_status, char *out, size_t cap,
                              size_t *got)
{
        EFI_GUID                http_guid = PMUCAL_HTTP_PROTOCOL_GUID;
        PMUCAL_SERVICE_BINDING *sb = http_binding();
        PMUCAL_HTTP_PROTOCOL   *http = NULL;
        EFI_HANDLE              child = NULL;
        EFI_EVENT               ev = NULL;
        status_t                rc;
        CHAR16                  wurl[CONFIG_URL_MAX_FW];
        char                    host[CONFIG_URL_MAX_FW];

        *http_status = 0;
        *got         = 0;
        if (!sb)
                return ST_UNSUPPORTED;
        if ((rc = http_url(url, wurl, host)) != ST_OK)
                return rc;
        if (EFI_ERROR(uefi_call_wrapper(sb->CreateChild, 2, sb, &child)))
                return ST_IO;
        rc = ST_IO;
        if (EFI_ERROR(uefi_call_wrapper(BS->HandleProtocol, 3, child, &http_guid,
                                        (void **)&http)) || !http)
                goto out;
        if ((rc = http_configure(http)) != ST_OK)
                goto out;
        if (EFI_ERROR(uefi_call_wrapper(BS->CreateEvent, 5, EVT_NOTIFY_SIGNAL, TPL_CALLBACK,
                                        http_signal, (void *)&http_done, &ev))) {
                rc = ST_IO;
                goto out;
        }
        if ((rc = http_send(http, ev, post, wurl, host, type, body, len)) == ST_OK)
                rc = http_receive(http, ev, http_status, out, cap, got);
out:
        if (http)
                uefi_call_wrapper(http->Configure, 2, http, NULL);
        if (ev)
                uefi_call_wrapper(BS->CloseEvent, 1, ev);
        if (child)
                uefi_call_wrapper(sb->DestroyChild, 2, sb, child);
        return rc;
}
