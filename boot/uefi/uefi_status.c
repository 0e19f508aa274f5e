/** @file The one conversion from EFI_STATUS to status_t. */
#include "boot/uefi/uefi_priv.h"

status_t uefi_status(EFI_STATUS st)
{
        switch (st) {
        case EFI_SUCCESS:          return ST_OK;
        case EFI_UNSUPPORTED:      return ST_UNSUPPORTED;
        case EFI_OUT_OF_RESOURCES: return ST_NO_MEM;
        case EFI_INVALID_PARAMETER:
        case EFI_BUFFER_TOO_SMALL: return ST_BAD_ARG;
        case EFI_TIMEOUT:          return ST_TIMEOUT;
        case EFI_NOT_FOUND:        return ST_NOT_FOUND;
        case EFI_WRITE_PROTECTED:
        case EFI_ACCESS_DENIED:    return ST_READ_ONLY;
        case EFI_VOLUME_FULL:      return ST_NO_SPACE;
        case EFI_VOLUME_CORRUPTED:
        case EFI_COMPROMISED_DATA: return ST_BAD_DATA;
        default:                   return ST_IO;
        }
}
