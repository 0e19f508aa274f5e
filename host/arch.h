/** @file
 * The one header through which shared host/ code reaches the architecture it is built for
 * (tools/check_layering.py allows one such header per layer): host/x86/ on x86-64, the only
 * architecture the hosted programs are built for.
 */
#ifndef PMUCAL_HOST_ARCH_H
#define PMUCAL_HOST_ARCH_H

#if defined(__x86_64__)
#include "host/x86/cpu_host.h"
#else
#error "the hosted programs are built for x86-64 only"
#endif

#endif
