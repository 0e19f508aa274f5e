/** @file
 * The EFI HTTP protocol, which GNU-EFI does not declare: the service binding that makes an
 * HTTP child on a NIC, and the child's Configure/Request/Response/Poll.
 * [UEFI-2.10] 29.6 "EFI HTTP Protocols": 29.6.1 EFI_HTTP_SERVICE_BINDING_PROTOCOL,
 * 29.6.2 EFI_HTTP_PROTOCOL (GetModeData, Configure, Request, Cancel, Response, Poll, in this
 * order), EFI_HTTP_CONFIG_DATA, EFI_HTTPv4_ACCESS_POINT, EFI_HTTP_TOKEN, EFI_HTTP_MESSAGE,
 * EFI_HTTP_STATUS_CODE. boot/uefi/ only.
 */
#ifndef PMUCAL_UEFI_HTTP_H
#define PMUCAL_UEFI_HTTP_H

#include <efi.h>

#define PMUCAL_HTTP_SERVICE_BINDING_GUID \
        { 0xbdc8e6af, 0xd9bc, 0x4379, { 0xa7, 0x2a, 0xe0, 0xc4, 0xe7, 0x5d, 0xae, 0x1c } }
#define PMUCAL_HTTP_PROTOCOL_GUID \
        { 0x7a59b29b, 0x910b, 0x4171, { 0x82, 0x42, 0xa8, 0x5a, 0x0d, 0xf2, 0x5b, 0x5b } }

/* [UEFI-2.10] Appendix D, Status Codes: the reply came but carries an HTTP error status. */
#ifndef EFI_HTTP_ERROR
#define EFI_HTTP_ERROR EFIERR(35)
#endif

typedef enum { PmucalHttp10, PmucalHttp11 } PMUCAL_HTTP_VERSION;
typedef enum { PmucalHttpGet, PmucalHttpPost } PMUCAL_HTTP_METHOD;

/* EFI_HTTP_STATUS_CODE is an enumeration, not the number: the spec's order, 0 unsupported. */
static const UINT16 pmucal_http_codes[] = {
        0,   100, 101, 200, 201, 202, 203, 204, 205, 206, 300, 301, 302, 303, 304, 305,
        307, 400, 401, 402, 403, 404, 405, 406, 407, 408, 409, 410, 411, 412, 413, 414,
        415, 416, 417, 500, 501, 502, 503, 504, 505, 308,
};

typedef struct {
        BOOLEAN          UseDefaultAddress;
        EFI_IPv4_ADDRESS LocalAddress;
        EFI_IPv4_ADDRESS LocalSubnet;
        UINT16           LocalPort;
} PMUCAL_HTTPv4_ACCESS_POINT;

typedef struct {
        UINT32  HttpVersion; /* PMUCAL_HTTP_VERSION */
        UINT32  TimeOutMillisec;
        BOOLEAN LocalAddressIsIPv6;
        union {
                PMUCAL_HTTPv4_ACCESS_POINT *IPv4Node;
                void                       *IPv6Node;
        } AccessPoint;
} PMUCAL_HTTP_CONFIG_DATA;

typedef struct {
        UINT32  Method; /* PMUCAL_HTTP_METHOD */
        CHAR16 *Url;
} PMUCAL_HTTP_REQUEST_DATA;

typedef struct {
        UINT32 StatusCode; /* index into pmucal_http_codes */
} PMUCAL_HTTP_RESPONSE_DATA;

typedef struct {
        CHAR8 *FieldName;
        CHAR8 *FieldValue;
} PMUCAL_HTTP_HEADER;

typedef struct {
        union {
                PMUCAL_HTTP_REQUEST_DATA  *Request;
                PMUCAL_HTTP_RESPONSE_DATA *Response;
        } Data;
        UINTN               HeaderCount;
        PMUCAL_HTTP_HEADER *Headers;
        UINTN               BodyLength;
        VOID               *Body;
} PMUCAL_HTTP_MESSAGE;

typedef struct {
        EFI_EVENT            Event;
        EFI_STATUS           Status;
        PMUCAL_HTTP_MESSAGE *Message;
} PMUCAL_HTTP_TOKEN;

typedef struct _PMUCAL_HTTP_PROTOCOL PMUCAL_HTTP_PROTOCOL;
struct _PMUCAL_HTTP_PROTOCOL {
        EFI_STATUS(EFIAPI *GetModeData)(PMUCAL_HTTP_PROTOCOL *, PMUCAL_HTTP_CONFIG_DATA *);
        EFI_STATUS(EFIAPI *Configure)(PMUCAL_HTTP_PROTOCOL *, PMUCAL_HTTP_CONFIG_DATA *);
        EFI_STATUS(EFIAPI *Request)(PMUCAL_HTTP_PROTOCOL *, PMUCAL_HTTP_TOKEN *);
        EFI_STATUS(EFIAPI *Cancel)(PMUCAL_HTTP_PROTOCOL *, PMUCAL_HTTP_TOKEN *);
        EFI_STATUS(EFIAPI *Response)(PMUCAL_HTTP_PROTOCOL *, PMUCAL_HTTP_TOKEN *);
        EFI_STATUS(EFIAPI *Poll)(PMUCAL_HTTP_PROTOCOL *);
};

/* [UEFI-2.10] 11.6 EFI_SERVICE_BINDING_PROTOCOL */
typedef struct _PMUCAL_SERVICE_BINDING PMUCAL_SERVICE_BINDING;
struct _PMUCAL_SERVICE_BINDING {
        EFI_STATUS(EFIAPI *CreateChild)(PMUCAL_SERVICE_BINDING *, EFI_HANDLE *);
        EFI_STATUS(EFIAPI *DestroyChild)(PMUCAL_SERVICE_BINDING *, EFI_HANDLE);
};

/* The IPv4 configuration of a NIC, which GNU-EFI does not declare either: [UEFI-2.10] 28.5
 * "EFI IPv4 Configuration II Protocol" (SetData, GetData, RegisterDataNotify,
 * UnregisterDataNotify, in this order), EFI_IP4_CONFIG2_DATA_TYPE, EFI_IP4_CONFIG2_POLICY,
 * EFI_IP4_CONFIG2_INTERFACE_INFO. */
#define PMUCAL_IP4_CONFIG2_PROTOCOL_GUID \
        { 0x5b446ed1, 0xe30b, 0x4faa, { 0x87, 0x1a, 0x36, 0x54, 0xec, 0xa3, 0x60, 0x80 } }

typedef enum {
        PmucalIp4Config2DataTypeInterfaceInfo,
        PmucalIp4Config2DataTypePolicy,
} PMUCAL_IP4_CONFIG2_DATA_TYPE;

typedef enum { PmucalIp4Config2PolicyStatic, PmucalIp4Config2PolicyDhcp } PMUCAL_IP4_CONFIG2_POLICY;

typedef struct {
        CHAR16           Name[32];
        UINT8            IfType;
        UINT32           HwAddressSize;
        EFI_MAC_ADDRESS  HwAddress;
        EFI_IPv4_ADDRESS StationAddress;
        EFI_IPv4_ADDRESS SubnetMask;
        UINT32           RouteTableSize;
        VOID            *RouteTable;
} PMUCAL_IP4_CONFIG2_INTERFACE_INFO;

typedef struct _PMUCAL_IP4_CONFIG2_PROTOCOL PMUCAL_IP4_CONFIG2_PROTOCOL;
struct _PMUCAL_IP4_CONFIG2_PROTOCOL {
        EFI_STATUS (EFIAPI *SetData)(PMUCAL_IP4_CONFIG2_PROTOCOL *This,
                                     PMUCAL_IP4_CONFIG2_DATA_TYPE DataType, UINTN DataSize,
                                     VOID *Data);
        EFI_STATUS (EFIAPI *GetData)(PMUCAL_IP4_CONFIG2_PROTOCOL *This,
                                     PMUCAL_IP4_CONFIG2_DATA_TYPE DataType, UINTN *DataSize,
                                     VOID *Data);
        VOID *RegisterDataNotify;
        VOID *UnregisterDataNotify;
};

#endif
