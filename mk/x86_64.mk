# mk/x86_64.mk: the x86-64 files of each folder and the x86-64 firmware image,
# build/pmucal.efi (`make`, `make ARCH=x86_64`). The same lists make the host archives
# (mk/host.mk, mk/tests.mk): the host is x86-64.

# ---- the x86-64 files of each folder -------------------------------------------------------
# boot/x86/: CPUID, the APIC, topology, traps. The decoders run on the host too; the CPU
# access below (MSRs, the PMI and trap entries) only in the firmware.
BOOT_x86_SRCS := \
	boot/x86/apic.c \
	boot/x86/coreclk.c \
	boot/x86/lfence.c \
	boot/x86/cpuid.c \
	boot/x86/cpuid_cache.c \
	boot/x86/cpuid_collect.c \
	boot/x86/cpuid_dump.c \
	boot/x86/cpuid_text.c \
	boot/x86/prefetch.c \
	boot/x86/spin.c \
	boot/x86/topology.c \
	boot/x86/topology_self.c \
	boot/x86/trap_cpu.c \
	boot/x86/trap_self.c
BOOT_x86_CPU_SRCS := \
	boot/x86/msr_cpu.c \
	boot/x86/pmi_x86_64.S \
	boot/x86/trap_x86_64.S
UEFI_x86_SRCS := \
	boot/uefi/x86/uefi_excl.c \
	boot/uefi/x86/uefi_pmi.c

# pmu/x86/: the dispatcher, the Intel and AMD drivers, IBS, PEBS, LBR.
PMU_x86_SRCS := \
	pmu/x86/clock.c \
	pmu/x86/pmu.c \
	pmu/x86/drv_amd.c \
	pmu/x86/drv_intel.c \
	pmu/x86/encode.c \
	pmu/x86/fault_probe.c \
	pmu/x86/ibs.c \
	pmu/x86/ibs_fetch.c \
	pmu/x86/ibs_op.c \
	pmu/x86/ibs_session.c \
	pmu/x86/lbr.c \
	pmu/x86/lbr_session.c \
	pmu/x86/pebs.c \
	pmu/x86/pebs_session.c \
	pmu/x86/perf_caps.c \
	pmu/x86/quirks.c

# bench/x86/: the kernels' bodies, the 4-level page tables and the live CR3 walker.
BENCH_x86_SRCS := \
	bench/x86/c2c_ops.c \
	bench/x86/kernel_addchain.c \
	bench/x86/kernel_block.c \
	bench/x86/kernel_branch.c \
	bench/x86/kernel_chase.c \
	bench/x86/kernel_load_x86.c \
	bench/x86/kernel_skid.c \
	bench/x86/ownpt.c \
	bench/x86/pagetable.c \
	bench/x86/ptlive.c \
	bench/x86/tlb_ctl.c \
	bench/x86/window_x86.c

# report/: the precise-sampling checks (IBS, PEBS, LBR) and the CPUID leaves in the inventory.
REPORT_x86_SRCS := \
	report/x86/inventory_cpuid.c \
	report/x86/samples.c \
	report/x86/samples_check.c

# app/x86/: the phases that exist on x86-64 only.
APP_x86_SRCS := \
	app/x86/gather.c \
	app/x86/latency_clock.c \
	app/x86/pmu.c \
	app/x86/sampling.c \
	app/x86/sampling_common.c \
	app/x86/sampling_ibs_fetch.c \
	app/x86/sampling_ibs_op.c \
	app/x86/sampling_lbr.c \
	app/x86/sampling_log.c \
	app/x86/sampling_pebs.c \
	app/x86/sampling_plan.c \
	app/x86/selftest.c \
	app/x86/tlb.c

# ---- the firmware image ---------------------------------------------------------------------
# -mno-red-zone is mandatory: the #GP/#UD and PMI handlers run on the interrupted stack. MS ABI
# lets us call UEFI services directly.
EFI_CFLAGS := $(COMMON_CFLAGS) -O2 -ffreestanding -fpic -fshort-wchar -mno-red-zone \
              -fno-stack-protector -fno-builtin-printf -mgeneral-regs-only \
              -DGNU_EFI_USE_MS_ABI -isystem $(GNUEFI_INC) -isystem $(GNUEFI_INC)/x86_64
EFI_LDFLAGS := -nostdlib -znocombreloc -T $(GNUEFI_LIB)/elf_x86_64_efi.lds -shared \
               -Bsymbolic -L$(GNUEFI_LIB)
EFI_LIBS = -lefi -lgnuefi $(shell $(CC) -print-libgcc-file-name)

efi_obj = $(patsubst %,$(B)/efi/%.o,$(basename $(1)))
EFI_OBJS := $(call efi_obj,$(call firmware_srcs,x86))
PMU_SYMS_GEN := $(B)/syms_gen.c
OBJ_DIRS += $(B)/efi

FIRMWARE_x86_64 := $(B)/pmucal.efi $(B)/syms.ok
IMAGE_x86_64    := $(B)/pmucal.efi
OUT_x86_64      := $(B)

check-deps-x86_64:
	$(Q)missing=""; \
	for f in $(GNUEFI_INC)/efi.h $(GNUEFI_LIB)/crt0-efi-x86_64.o $(GNUEFI_LIB)/libefi.a; do \
		[ -e $$f ] || missing="$$missing $$f"; done; \
	if [ -n "$$missing" ]; then \
		echo "pmucal: GNU-EFI is missing ($$missing)."; \
		echo "pmucal: run 'make deps' (apt-get install $(DEB_PACKAGES))"; exit 1; fi

$(B)/efi/bench/%.o: XFLAGS = $(BENCH_CFLAGS)
$(B)/efi/%.o: %.c
	$(Q)mkdir -p $(@D)
	$(say) CC $<
	$(Q)$(CC) $(EFI_CFLAGS) $(XFLAGS) -c $< -o $@

$(B)/efi/%.o: %.S
	$(Q)mkdir -p $(@D)
	$(say) AS $<
	$(Q)$(CC) $(EFI_CFLAGS) -c $< -o $@

# The symbol table: link once with an empty table, `nm` that image into build/syms_gen.c,
# link again with it. The table only adds data, after .text, so function addresses cannot
# move between the passes; build/syms.ok proves it on every build.
$(B)/pmucal-pass1.so: $(EFI_OBJS) $(call efi_obj,$(SYMS_NONE_SRC))
	$(say) LD $@
	$(Q)$(LD) $(EFI_LDFLAGS) $(GNUEFI_LIB)/crt0-efi-x86_64.o $^ -o $@ $(EFI_LIBS)

$(PMU_SYMS_GEN): $(B)/pmucal-pass1.so tools/gen_syms.py
	$(say) GEN $@
	$(Q)nm --defined-only $< | $(PYTHON) tools/gen_syms.py > $@.tmp && mv $@.tmp $@

$(B)/pmucal.so: $(EFI_OBJS) $(call efi_obj,$(PMU_SYMS_GEN))
	$(say) LD $@
	$(Q)$(LD) $(EFI_LDFLAGS) $(GNUEFI_LIB)/crt0-efi-x86_64.o $^ -o $@ $(EFI_LIBS)

$(B)/pmucal.efi: $(B)/pmucal.so
	$(say) OBJCOPY $@
	$(Q)$(OBJCOPY) -j .text -j .sdata -j .data -j .dynamic -j .dynsym -j .rel -j .rela \
		-j .rel.* -j .rela.* -j .reloc --target efi-app-x86_64 --subsystem=10 $< $@
	$(Q)echo "built $@ ($(VERSION))"

$(B)/syms.ok: $(B)/pmucal.so $(B)/pmucal-pass1.so
	$(Q)nm --defined-only $(B)/pmucal-pass1.so | awk '$$2 ~ /^[Tt]$$/' | sort > $@.1
	$(Q)nm --defined-only $(B)/pmucal.so | awk '$$2 ~ /^[Tt]$$/' | sort > $@.2
	$(Q)cmp -s $@.1 $@.2 || { echo "symbol table: function addresses moved between link passes"; \
		diff $@.1 $@.2 | head; exit 1; }
	$(Q)touch $@
