/** @file
 * Intel Last Branch Records: legacy LBR (format from IA32_PERF_CAPABILITIES[5:0]) and
 * Architectural LBR (CPUID.07H.0:EDX[19], leaf 0x1C). MSR numbers and bit macros only.
 * Sources: [SDM-3B] "Last Branch Recording" / "Architectural Last Branch Records"; Linux
 * msr-index.h, events/perf_event.h (LBR_FORMAT_*), events/intel/lbr.c.
 */
#ifndef PMUCAL_MSR_LBR_H
#define PMUCAL_MSR_LBR_H

#include "lib/base.h"
#include "pmu/x86/msr_arch.h" /* IA32_DEBUGCTL and IA32_PERF_CAPABILITIES fields */

/* ---- legacy LBR ------------------------------------------------------------------------- */
/* IA32_PERF_CAPABILITIES[5:0] (Linux LBR_FORMAT_*). */
#define LBR_FORMAT_32               0x00   /* one MSR: FROM [31:0], TO [63:32] */
#define LBR_FORMAT_LIP              0x01
#define LBR_FORMAT_EIP              0x02
#define LBR_FORMAT_EIP_FLAGS        0x03   /* FROM[63] mispredicted */
#define LBR_FORMAT_EIP_FLAGS2       0x04   /* + FROM[62] in TSX, FROM[61] abort */
#define LBR_FORMAT_INFO             0x05   /* MSR_LBR_INFO_x: mispred, TSX, cycles */
#define LBR_FORMAT_TIME             0x06   /* FROM[63] mispred, TO[63:48] cycles (Goldmont) */
#define LBR_FORMAT_INFO2            0x07   /* LBR_INFO without TSX bits */
#define LBR_FORMAT_MAX_KNOWN        LBR_FORMAT_INFO2

#define MSR_LBR_SELECT              0x1c8
#define MSR_LBR_TOS                 0x1c9
#define MSR_LBR_CORE_FROM           0x40   /* Core 2 */
#define MSR_LBR_CORE_TO             0x60
#define MSR_LBR_NHM_FROM            0x680  /* Nehalem .. Ice Lake */
#define MSR_LBR_NHM_TO              0x6c0
#define MSR_LBR_INFO_0              0xdc0  /* Skylake+, format 5 */

/* MSR_LBR_SELECT: a set bit SUPPRESSES that class, except LBR_CALL_STACK which enables the
 * call-stack mode (HSW+). Linux lbr.c LBR_*_BIT. */
#define LBR_SELECT_KERNEL           BIT_ULL(0)  /* CPL 0 */
#define LBR_SELECT_USER             BIT_ULL(1)  /* CPL > 0 */
#define LBR_SELECT_JCC              BIT_ULL(2)
#define LBR_SELECT_REL_CALL         BIT_ULL(3)
#define LBR_SELECT_IND_CALL         BIT_ULL(4)
#define LBR_SELECT_RETURN           BIT_ULL(5)
#define LBR_SELECT_IND_JMP          BIT_ULL(6)
#define LBR_SELECT_REL_JMP          BIT_ULL(7)
#define LBR_SELECT_FAR              BIT_ULL(8)
#define LBR_SELECT_CALL_STACK       BIT_ULL(9)
#define LBR_SELECT_MASK             0x3ffull

/* FROM flags in formats 3, 4 and 6 (Linux LBR_FROM_FLAG_*). */
#define LBR_FROM_FLAG_MISPRED       BIT_ULL(63)
#define LBR_FROM_FLAG_IN_TX         BIT_ULL(62)
#define LBR_FROM_FLAG_ABORT         BIT_ULL(61)
/* Format 6: TO[63:48] holds the cycle count. */
#define LBR_TO_CYCLES_SHIFT         48

/* LBR_INFO layout: MSR_LBR_INFO_x (format 5/7) and IA32_LBR_x_INFO (Arch LBR). */
#define LBR_INFO_MISPRED            BIT_ULL(63)
#define LBR_INFO_IN_TX              BIT_ULL(62)
#define LBR_INFO_ABORT              BIT_ULL(61)
#define LBR_INFO_CYC_CNT_VALID      BIT_ULL(60)  /* Arch LBR */
#define LBR_INFO_BR_TYPE_SHIFT      56           /* Arch LBR, [59:56] */
#define LBR_INFO_BR_TYPE            (0xfull << LBR_INFO_BR_TYPE_SHIFT)
#define LBR_INFO_CYCLES             0xffffull    /* elapsed core cycles since the last entry */

/* ---- Architectural LBR ([SDM-3B]; Linux msr-index.h MSR_ARCH_LBR_*) --------------------- */
#define MSR_ARCH_LBR_CTL            0x14ce
#define MSR_ARCH_LBR_DEPTH          0x14cf       /* writing it clears every entry */
#define MSR_ARCH_LBR_FROM_0         0x1500
#define MSR_ARCH_LBR_TO_0           0x1600
#define MSR_ARCH_LBR_INFO_0         0x1200

#define ARCH_LBR_CTL_LBREN          BIT_ULL(0)
#define ARCH_LBR_CTL_OS             BIT_ULL(1)
#define ARCH_LBR_CTL_USR            BIT_ULL(2)
#define ARCH_LBR_CTL_CALL_STACK     BIT_ULL(3)
#define ARCH_LBR_CTL_JCC            BIT_ULL(16)
#define ARCH_LBR_CTL_REL_JMP        BIT_ULL(17)
#define ARCH_LBR_CTL_IND_JMP        BIT_ULL(18)
#define ARCH_LBR_CTL_REL_CALL       BIT_ULL(19)
#define ARCH_LBR_CTL_IND_CALL       BIT_ULL(20)
#define ARCH_LBR_CTL_RETURN         BIT_ULL(21)
#define ARCH_LBR_CTL_OTHER_BRANCH   BIT_ULL(22)
#define ARCH_LBR_CTL_MASK           0x7f000full

/* CPUID.1CH (Linux union cpuid28_*): EAX[7:0] depth bitmap, bit n = depth 8 * (n + 1);
 * EBX[0] CPL filter, [1] branch filter, [2] call stack; ECX[0] mispredict, [1] timed LBR
 * (cycle counts), [2] branch type. */
#define CPUID_ARCH_LBR_LEAF         0x1c
#define ARCH_LBR_DEPTH_MASK         0xffull
#define ARCH_LBR_EBX_CPL_FILTER     BIT_ULL(0)
#define ARCH_LBR_EBX_BR_FILTER      BIT_ULL(1)
#define ARCH_LBR_EBX_CALL_STACK     BIT_ULL(2)
#define ARCH_LBR_ECX_MISPRED        BIT_ULL(0)
#define ARCH_LBR_ECX_TIMED          BIT_ULL(1)
#define ARCH_LBR_ECX_BR_TYPE        BIT_ULL(2)

#endif
