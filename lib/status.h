/** @file
 * One status enum for the whole program. Every function that can fail returns a status_t and
 * passes results through out-pointers; a status is propagated unchanged and logged once, by the
 * level that knows the context. ST_UNSUPPORTED is not a failure: callers turn it into a SKIP.
 * Portable: no UEFI types (the one conversion from the firmware status type lives in
 * boot/uefi/uefi_status.c).
 */
#ifndef PMUCAL_STATUS_H
#define PMUCAL_STATUS_H

typedef enum {
        ST_OK = 0,
        ST_UNSUPPORTED,   /* the hardware or firmware does not have it */
        ST_FAULT,         /* an instruction raised #GP/#UD and was recovered */
        ST_NO_MEM,
        ST_IO,
        ST_BAD_ARG,       /* programmer or caller error */
        ST_TIMEOUT,
        ST_NOT_FOUND,
        ST_BAD_DATA,      /* malformed input: config, ACPI table, JSON, CPUID dump */
        ST_READ_ONLY,     /* write-protected volume */
        ST_NO_SPACE,      /* volume full */
        ST_DISTURBED,     /* every timed window disturbed: a measurement left out, not a fault */
        ST__COUNT
} status_t;

/** Short lower-case text for @p st ("unsupported", "I/O error"); never NULL. */
const char *status_str(status_t st);

#endif
