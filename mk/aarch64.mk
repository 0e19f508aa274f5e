# mk/aarch64.mk: the AArch64 files of each folder and the AArch64 firmware image,
# build/aarch64/pmucal.efi (`make ARCH=aarch64`): the same program (app/pmucal.c) on the
# AArch64 platform (boot/arm64/, boot/uefi/arm64/uefi_arm64.c), the PMUv3 driver (pmu/arm64/)
# and the AArch64 kernel bodies (bench/arm64/), built with the cross compiler. `make deps`
# installs the compiler, QEMU (the system emulator for the firmware, qemu-user for the
# kernels' count in tests/test_oracle_arm64.sh) and AAVMF and unpacks GNU-EFI for arm64 under
# build/aarch64/gnu-efi (it cannot be installed beside the amd64 package).

# ---- the AArch64 files of each folder ------------------------------------------------------
# boot/arm64/: the decoders are pure C, so they are in the host test archive too (mk/tests.mk);
# the CPU access only in the firmware.
BOOT_arm64_SRCS := \
	boot/arm64/gic_madt.c \
	boot/arm64/gic_rules.c \
	boot/arm64/idreg.c \
	boot/arm64/pmi_window.c \
	boot/arm64/psci.c \
	boot/arm64/topology_mpidr.c
BOOT_arm64_CPU_SRCS := \
	boot/arm64/gic.c \
	boot/arm64/idreg_cpu.c \
	boot/arm64/pmi.c \
	boot/arm64/prefetch.c \
	boot/arm64/psci_call.c \
	boot/arm64/smp.c \
	boot/arm64/smp_entry_arm64.S \
	boot/arm64/spin.c \
	boot/arm64/topology_self.c \
	boot/arm64/trap.c \
	boot/arm64/trap_arm64.S
UEFI_arm64_SRCS := \
	boot/uefi/arm64/uefi_arm64.c

# pmu/arm64/: the PMUv3 driver.
PMU_arm64_SRCS := \
	pmu/arm64/clock.c \
	pmu/arm64/pmu_arm64.c \
	pmu/arm64/pmu_common.c

# bench/arm64/: the kernels' bodies, and the own page tables' AArch64 side (bench/ownpt.h),
# which builds none: the harness has no AArch64 table builder.
BENCH_arm64_SRCS := \
	bench/arm64/c2c_ops.c \
	bench/arm64/kernel_addchain.c \
	bench/arm64/kernel_branch.c \
	bench/arm64/kernel_chase.c \
	bench/arm64/kernel_load_arm64.c \
	bench/arm64/kernel_skid.c \
	bench/arm64/ownpt.c \
	bench/arm64/tlb_ctl.c \
	bench/arm64/window_arm64.c

# app/arm64/: inventory, selftest and pmu on the PMUv3, and the phases not ported yet
# SKIPping with their reason (app/arm64/phases.c).
APP_arm64_SRCS := \
	app/arm64/validate.c \
	app/arm64/gather.c \
	app/arm64/latency_clock.c \
	app/arm64/phases.c \
	app/arm64/pmu.c \
	app/arm64/tlb.c \
	app/arm64/selftest.c

# ---- the firmware image ---------------------------------------------------------------------
A64_CROSS  ?= aarch64-linux-gnu-
A64_GNUEFI ?= $(B)/aarch64/gnu-efi/usr
# -mno-outline-atomics: compare-and-swap inline (LDAXR/STLXR), not libgcc's helpers, which
# ask the Linux auxiliary vector whether LSE atomics exist.
A64_CFLAGS := $(COMMON_CFLAGS) -O2 -ffreestanding -fpic -fshort-wchar -fno-stack-protector \
              -fno-builtin-printf -mgeneral-regs-only -mno-outline-atomics \
              -isystem $(A64_GNUEFI)/include/efi -isystem $(A64_GNUEFI)/include/efi/aarch64
# EFI_SUBSYSTEM: GNU-EFI's AArch64 crt0 writes the PE header itself and takes the subsystem
# from this symbol; without it AAVMF refuses the image as "Unsupported".
A64_LDFLAGS := -nostdlib -znocombreloc -T $(A64_GNUEFI)/lib/elf_aarch64_efi.lds -shared \
               -Bsymbolic -L$(A64_GNUEFI)/lib --defsym=EFI_SUBSYSTEM=0xa --no-warn-rwx-segments \
               --no-undefined
# .dynsym is copied although the loader ignores it: it lies after _edata, so the raw file
# then covers the .data section the crt0 header announces up to its 512-byte aligned end
# (without it AAVMF also says "Unsupported").
A64_SECTIONS := -j .text -j .sdata -j .data -j .dynamic -j .dynsym -j .rodata -j .rel \
                -j .rela -j .rel.* -j .rela.* -j .reloc

a64_obj = $(patsubst %,$(B)/aarch64/obj/%.o,$(basename $(1)))
A64_OBJS := $(call a64_obj,$(call firmware_srcs,arm64) $(SYMS_NONE_SRC))
OBJ_DIRS += $(B)/aarch64/obj

FIRMWARE_aarch64 := $(B)/aarch64/pmucal.efi
IMAGE_aarch64    := $(B)/aarch64/pmucal.efi
OUT_aarch64      := $(B)/aarch64
RUN_ARGS_aarch64 := --arch aarch64

check-deps-aarch64:
	$(Q)[ -e $(A64_GNUEFI)/lib/crt0-efi-aarch64.o ] && command -v $(A64_CROSS)gcc >/dev/null || \
		{ echo "pmucal: the aarch64 cross toolchain or GNU-EFI for arm64 is missing:" \
		       "run 'make deps'"; exit 1; }

deps: deps-aarch64
deps-aarch64:
	$(Q)tools/install-deps.sh --gnuefi-arm64 $(B)/aarch64/gnu-efi gcc-aarch64-linux-gnu \
		qemu-system-arm qemu-user qemu-efi-aarch64

$(B)/aarch64/obj/bench/%.o: XFLAGS = $(BENCH_CFLAGS)
$(B)/aarch64/obj/%.o: %.c
	$(Q)mkdir -p $(@D)
	$(say) CC64 $<
	$(Q)$(A64_CROSS)gcc $(A64_CFLAGS) $(XFLAGS) -c $< -o $@
$(B)/aarch64/obj/%.o: %.S
	$(Q)mkdir -p $(@D)
	$(say) AS64 $<
	$(Q)$(A64_CROSS)gcc $(A64_CFLAGS) -c $< -o $@
$(B)/aarch64/pmucal.so: $(A64_OBJS)
	$(say) LD64 $@
	$(Q)$(A64_CROSS)ld $(A64_LDFLAGS) $(A64_GNUEFI)/lib/crt0-efi-aarch64.o $^ -o $@ \
		-lefi -lgnuefi $(shell $(A64_CROSS)gcc -print-libgcc-file-name)
$(B)/aarch64/pmucal.efi: $(B)/aarch64/pmucal.so
	$(say) OBJCOPY $@
	$(Q)$(A64_CROSS)objcopy $(A64_SECTIONS) -O binary $< $@
	$(Q)echo "built $@ ($(VERSION))"
