# pmucal: one top-level Makefile, organised by folder (docs/architecture.md says what each
# folder owns). All output goes under build/. Quiet by default (one short line per step);
# `make V=1` shows every command, those of the sub-makes too.
#
#   make            build/pmucal.efi
#   make run        install missing Debian packages, build, boot it in QEMU/OVMF
#   make test       layering check, host unit tests, shell tests, fuzzers, QEMU boots;
#                   ends with one line "N passed, N failed"
#   make usb        build/pmucal.img, a GPT disk with an ESP to dd onto a USB stick
#   make host       pmucal-host, pmucal-table, libpmucal.a and libpmucal.so (release flags)
#   make install    PREFIX=DIR: headers, libpmucal (static, shared, pkg-config), pmucal-table
#   make coverage   host unit tests with gcov; per-file line coverage (needs gcovr)
#   make bench      benchmark figures (not a timed test)
#   make mutate     mutation testing of the verdict code: kill rate of tools/mutants.txt
#   make plot       draw the newest results (RESULTS=DIR for another)
#   make deps       apt-get install what the build and the tests need
#   make check-layering   the include graph and hardware access follow the layers

# ---- tools and paths ---------------------------------------------------------------------
ifeq ($(origin CC),default)
CC := gcc
endif
HOST_CC    ?= cc
CLANG      ?= clang
LD         ?= ld
OBJCOPY    ?= objcopy
PYTHON     ?= python3
GNUEFI_INC ?= /usr/include/efi
GNUEFI_LIB ?= /usr/lib
OVMF       ?= /usr/share/OVMF/OVMF_CODE_4M.fd
OVMF_VARS  ?= /usr/share/OVMF/OVMF_VARS_4M.fd
QEMU       ?= qemu-system-x86_64
RUN_ARGS   ?=
RESULTS    ?= $(B)/run/results
FUZZ_SECONDS ?= 10
ARCH       ?= x86_64

B := build
VERSION := $(shell git describe --always --dirty 2>/dev/null || echo unknown)

# Debian packages the build, run and tests need (make deps installs the missing ones).
DEB_PACKAGES := gnu-efi ovmf qemu-system-x86 mtools dosfstools gdisk libcmocka-dev \
                libjansson-dev clang libclang-rt-14-dev gnuplot-nox python3 acpica-tools \
                binutils make gcc python3-jsonschema python3-pytest python3-pip python3-venv \
                python3-setuptools python3-wheel valgrind sbsigntool efitools openssl \
                python3-aiohttp python3-psycopg2 postgresql chromium chromium-driver python3-selenium

# Quiet by default: one short line per step; V=1 prints the commands.
# QS: -s for a sub-make whose own commands are not worth a line, unless V=1.
ifeq ($(V),1)
Q :=
QS :=
say := @true
else
Q := @
QS := -s
say = @printf '  %-7s %s\n'
endif

# ---- flags -------------------------------------------------------------------------------
WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
        -Wno-unused-parameter
COMMON_CFLAGS := -std=gnu11 -MMD -MP -I. -fno-strict-aliasing $(WARN) \
                 -DPMUCAL_VERSION='"$(VERSION)"'

# The firmware build. -mno-red-zone is mandatory: the #GP/#UD and PMI handlers run on the
# interrupted stack. MS ABI lets us call UEFI services directly.
EFI_CFLAGS := $(COMMON_CFLAGS) -O2 -ffreestanding -fpic -fshort-wchar -mno-red-zone \
              -fno-stack-protector -fno-builtin-printf -mgeneral-regs-only \
              -DGNU_EFI_USE_MS_ABI -isystem $(GNUEFI_INC) -isystem $(GNUEFI_INC)/x86_64
EFI_LDFLAGS := -nostdlib -znocombreloc -T $(GNUEFI_LIB)/elf_x86_64_efi.lds -shared \
               -Bsymbolic -L$(GNUEFI_LIB)
EFI_LIBS := -lefi -lgnuefi $(shell $(CC) -print-libgcc-file-name)

# The measurement kernels (bench/): pinned here so that editing the global flags does not
# change what is being measured. Applied to every bench/ object of every build.
BENCH_CFLAGS := -O2 -fno-tree-vectorize -fno-unroll-loops -fno-omit-frame-pointer

# Shipped host programs and library: release flags. Unit tests: test flags.
HOST_CFLAGS := $(COMMON_CFLAGS) -O2 -g -fPIC
COV_FLAGS   ?=
TEST_CFLAGS := $(COMMON_CFLAGS) -O1 -g -Wno-missing-prototypes $(COV_FLAGS)
FUZZ_CFLAGS := -std=gnu11 -I. -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all

# ---- sources, one list per folder ---------------------------------------------------------
ARCH_DIR_x86_64 := x86
ARCH_DIR_aarch64 := arm64
ARCH_DIR := $(ARCH_DIR_$(ARCH))

LIB_SRCS := \
	lib/log.c \
	lib/fmt.c \
	lib/stats.c \
	lib/status.c

# boot/: portable parsers of the firmware's tables, the CPU access of each architecture,
# and the platform implementations (UEFI for the firmware, Linux for pmucal-host).
BOOT_SRCS := \
	boot/acpi.c \
	boot/acpi_hmat.c \
	boot/acpi_pptt.c \
	boot/cpu_info.c \
	boot/fatfree.c \
	boot/memrange.c \
	boot/mp.c \
	boot/smbios.c \
	boot/topology_pptt.c
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
# AArch64 decoders: pure C, so also in the host test archive (the rest of the AArch64 build
# is under "aarch64" below).
BOOT_arm64_PURE_SRCS := \
	boot/arm64/gic_madt.c \
	boot/arm64/gic_rules.c \
	boot/arm64/idreg.c \
	boot/arm64/pmi_window.c \
	boot/arm64/psci.c \
	boot/arm64/topology_mpidr.c
BOOT_UEFI_SRCS := \
	boot/uefi/uefi_con.c \
	boot/uefi/x86/uefi_excl.c \
	boot/uefi/uefi_file.c \
	boot/uefi/uefi_libc.c \
	boot/uefi/uefi_main.c \
	boot/uefi/uefi_mem.c \
	boot/uefi/uefi_mem_node.c \
	boot/uefi/uefi_mp.c \
	boot/uefi/uefi_net.c \
	boot/uefi/x86/uefi_pmi.c \
	boot/uefi/uefi_status.c \
	boot/uefi/uefi_tables.c \
	boot/uefi/uefi_time.c
BOOT_LINUX_SRCS := \
	boot/linux/linux_cpu.c \
	boot/linux/linux_file.c \
	boot/linux/linux_numa.c \
	boot/linux/linux_perf.c \
	boot/linux/x86/linux_msr.c \
	boot/linux/linux_plat.c

# pmu/: events as data (generated from pmu/events/), the driver interface, sampling.
PMU_EVENTS_GEN := $(B)/events_gen.c
PMU_SRCS := \
	pmu/events.c \
	pmu/sample.c \
	$(PMU_EVENTS_GEN)
PMU_x86_SRCS := \
	pmu/x86/clock.c \
	pmu/x86/pmu.c \
	pmu/x86/drv_amd.c \
	pmu/x86/drv_intel.c \
	pmu/x86/encode.c \
	pmu/x86/fault_probe.c \
	pmu/x86/ibs.c \
	pmu/x86/ibs_session.c \
	pmu/x86/lbr.c \
	pmu/x86/lbr_session.c \
	pmu/x86/pebs.c \
	pmu/x86/pebs_session.c \
	pmu/x86/perf_caps.c \
	pmu/x86/quirks.c

BENCH_SRCS := \
	bench/branch_pattern.c \
	bench/c2c.c \
	bench/chain.c \
	bench/chase_buf.c \
	bench/chase_job.c \
	bench/clock_chain.c \
	bench/kernel_load.c \
	bench/kernel_pmu.c \
	bench/kernel_tlb.c \
	bench/measure.c \
	bench/measure_on.c \
	bench/measure_points.c \
	bench/ownpt.c \
	bench/sweep.c \
	bench/tlb.c \
	bench/window.c
BENCH_x86_SRCS := \
	bench/x86/c2c_ops.c \
	bench/x86/kernel_addchain.c \
	bench/x86/kernel_block.c \
	bench/x86/kernel_branch.c \
	bench/x86/kernel_chase.c \
	bench/x86/kernel_load_x86.c \
	bench/x86/kernel_skid.c \
	bench/x86/pagetable.c \
	bench/x86/ptlive.c \
	bench/x86/tlb_ctl.c \
	bench/x86/window_x86.c

REPORT_SRCS := \
	report/inventory.c \
	report/inventory_json.c \
	report/json.c \
	report/json_check.c \
	report/lattable.c \
	report/lattable_json.c \
	report/lattable_numa.c \
	report/lattable_sets.c \
	report/c2c.c \
	report/levels.c \
	report/loaded.c \
	report/levels_plateau.c \
	report/numa.c \
	report/numa_out.c \
	report/rep.c \
	report/tlbdetect.c \
	report/tlbdetect_out.c
REPORT_x86_SRCS := \
	report/x86/inventory_cpuid.c \
	report/x86/samples.c \
	report/x86/samples_check.c

APP_SRCS := \
	app/c2c.c \
	app/config.c \
	app/config_cpus.c \
	app/config_keys.c \
	app/cpus.c \
	app/cpus_pptt.c \
	app/gather.c \
	app/latency.c \
	app/latency_check.c \
	app/latency_pages.c \
	app/latency_sets.c \
	app/numa.c \
	app/numa_loaded.c \
	app/numa_mem.c \
	app/pmu_sample_run.c \
	app/pmu_validate.c \
	app/pmu_validate_mem.c \
	app/pmucal.c \
	app/results.c \
	app/upload.c \
	app/tlb_out.c
# The phases that exist on x86-64 only (the AArch64 ones are under "aarch64" below).
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

# host/: host-only programs and the consumer library.
LIBPMUCAL_SRCS := \
	host/libpmucal.c \
	host/libpmucal_classify.c \
	host/libpmucal_clock.c \
	host/libpmucal_common.c \
	host/libpmucal_files.c \
	host/libpmucal_json.c \
	host/libpmucal_numa.c \
	host/libpmucal_numa_classify.c \
	host/libpmucal_sets.c \
	host/libpmucal_source.c \
	host/libpmucal_tlb.c \
	host/libpmucal_tlb_classify.c \
	host/libpmucal_units.c
PMUCAL_TABLE_SRCS := \
	host/cli_stdout.c \
	host/pmucal_table.c \
	host/pmucal_table_classify.c \
	host/pmucal_table_diff.c \
	host/pmucal_table_diff_files.c \
	host/pmucal_table_files.c \
	host/pmucal_table_diff_tlb.c \
	host/pmucal_table_match.c \
	host/pmucal_table_collector.c \
	host/pmucal_table_remote.c \
	host/pmucal_table_perf.c \
	host/pmucal_table_report.c \
	host/pmucal_table_show.c
PMUCAL_HOST_SRCS := \
	host/cli_stdout.c \
	host/host_args.c \
	host/inventory_host.c \
	host/pmucal_host.c \
	host/tlb_host.c \
	$(BOOT_LINUX_SRCS)

# Code compiled into the firmware and into the host archives alike.
PORTABLE_SRCS := $(LIB_SRCS) $(BOOT_SRCS) $(BOOT_$(ARCH_DIR)_SRCS) $(PMU_SRCS) \
                 $(PMU_$(ARCH_DIR)_SRCS) $(BENCH_SRCS) $(BENCH_$(ARCH_DIR)_SRCS) \
                 $(REPORT_SRCS) $(REPORT_$(ARCH_DIR)_SRCS) $(APP_SRCS) \
                 $(APP_$(ARCH_DIR)_SRCS)
# The symbol table of the firmware image comes from a two-pass link (see the rules below).
PMU_SYMS_GEN := $(B)/syms_gen.c
EFI_SRCS := $(PORTABLE_SRCS) $(BOOT_$(ARCH_DIR)_CPU_SRCS) $(BOOT_UEFI_SRCS)

efi_obj = $(patsubst %,$(B)/efi/%.o,$(basename $(1)))
host_obj = $(patsubst %,$(B)/host/obj/%.o,$(basename $(1)))
test_obj = $(patsubst %,$(B)/test/obj/%.o,$(basename $(1)))

EFI_OBJS := $(call efi_obj,$(EFI_SRCS))
SYMS_NONE_SRC := pmu/syms_none.c

# ---- tests ---------------------------------------------------------------------------------
# Every tests/test_<name>.c is a cmocka binary. It links its own file, the test platform,
# one MSR back end and the test doubles tests/unittests.cfg names for it, against the
# per-layer archives, so the linker takes only what the test uses; that table becomes the
# variables TEST_MSR_<name>, TEST_EXTRA_<name> and TEST_LDFLAGS_<name> in $(B)/unittests.mk.
TESTS := $(sort $(patsubst tests/test_%.c,%,$(filter-out tests/test_util.c,$(wildcard tests/test_*.c))))
# (-include: make deps runs before python3 is installed; a test binary depends on the file,
# so a fault in the table stops its link with the table's message.)
UNITTESTS_MK := $(B)/unittests.mk
-include $(UNITTESTS_MK)
$(UNITTESTS_MK): tests/unittests.cfg tests/unittests.py
	$(Q)mkdir -p $(@D)
	$(say) GEN $@
	$(Q)$(PYTHON) tests/unittests.py --make $@
TEST_SUPPORT_SRCS := \
	tests/acpi_canon.c \
	tests/acpi_fixture.c \
	tests/config_fixture.c \
	tests/cpuid_dump.c \
	tests/fake_mem_node.c \
	tests/fake_net.c \
	tests/fake_plat.c \
	tests/fake_volume.c \
	tests/table_cases.c \
	tests/test_util.c
TEST_LAYER_SRCS := $(PORTABLE_SRCS) $(SYMS_NONE_SRC) $(LIBPMUCAL_SRCS) $(BOOT_arm64_PURE_SRCS)
TEST_LIBS := -lcmocka -ljansson -lm -lpthread $(COV_FLAGS)
TEST_BINS := $(patsubst %,$(B)/host/tests/test_%,$(TESTS))

# libFuzzer targets (clang): tests/fuzz_<name>.c with a corpus in tests/corpus/<name>/.
FUZZERS := acpi config table
FUZZ_SRCS_acpi   := boot/acpi.c boot/acpi_hmat.c boot/acpi_pptt.c boot/smbios.c lib/status.c lib/fmt.c lib/log.c
FUZZ_SRCS_config := app/config.c app/config_cpus.c app/config_keys.c lib/status.c lib/fmt.c lib/log.c report/rep.c \
                    report/json.c tests/fake_plat.c tests/fake_volume.c tests/fake_mem_node.c \
                    boot/memrange.c
FUZZ_SRCS_table  := $(LIBPMUCAL_SRCS)
FUZZ_LIBS := -ljansson -lm
FUZZ_BINS := $(patsubst %,$(B)/fuzz/fuzz_%,$(FUZZERS))

# Host-only tools built from the same archives.
RECORD_TLB_SRCS := tests/record_tlb.c
ACPI_DECODE_SRCS := tests/acpi_decode.c
BENCH_SAMPLING_SRCS := tests/bench_sampling.c

# Prerequisites that name per-test variables ($$(TEST_MSR_$$*)) need a second expansion.
.SECONDEXPANSION:
# Objects made on the way to a test binary are kept, not deleted as intermediate files: the
# next build relinks instead of recompiling them.
.SECONDARY:

.PHONY: all run test unit coverage fuzz usb host bench bench-latency bench-tlb bench-pmu \
        bench-sampling bench-numa bench-classify bench-report bench-aarch64 bench-mutate mutate \
        plot deps check-deps check-layering clean test-asan test-asan-build install keys \
        signed-snakeoil
.DEFAULT_GOAL := all

# ---- the firmware application --------------------------------------------------------------
ifeq ($(ARCH),aarch64)
all: check-deps-aarch64 $(B)/aarch64/pmucal.efi
else
all: check-deps $(B)/pmucal.efi $(B)/syms.ok
endif

check-deps:
	$(Q)missing=""; \
	for f in $(GNUEFI_INC)/efi.h $(GNUEFI_LIB)/crt0-efi-x86_64.o $(GNUEFI_LIB)/libefi.a; do \
		[ -e $$f ] || missing="$$missing $$f"; done; \
	if [ -n "$$missing" ]; then \
		echo "pmucal: GNU-EFI is missing ($$missing)."; \
		echo "pmucal: run 'make deps' (apt-get install $(DEB_PACKAGES))"; exit 1; fi

deps:
	$(Q)tools/install-deps.sh $(DEB_PACKAGES)

$(PMU_EVENTS_GEN): pmu/gen_events.py $(wildcard pmu/events/*.json) pmu/events/mapfile.csv
	$(Q)mkdir -p $(@D)
	$(say) GEN $@
	$(Q)$(PYTHON) pmu/gen_events.py pmu/events $@

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

ifeq ($(ARCH),aarch64)
run: deps
	$(Q)$(MAKE) --no-print-directory $(QS) all ARCH=aarch64
	./run-qemu.sh --arch aarch64 --out $(B)/run/results $(RUN_ARGS)

usb: all
	$(say) IMAGE $(B)/aarch64/pmucal.img
	$(Q)$(call usb_image,$(B)/aarch64/pmucal.efi,$(B)/aarch64/pmucal.img)

signed-snakeoil: all
	$(Q)tools/sign.sh snakeoil $(B)/aarch64/sb $(B)/aarch64/pmucal.efi
else
run: deps
	$(Q)$(MAKE) --no-print-directory $(QS) all
	./run-qemu.sh --out $(B)/run/results $(RUN_ARGS)

usb: all
	$(say) IMAGE $(B)/pmucal.img
	$(Q)$(call usb_image,$(B)/pmucal.efi,$(B)/pmucal.img)

signed-snakeoil: all
	$(Q)tools/sign.sh snakeoil $(B)/sb $(B)/pmucal.efi
endif

# ---- Secure Boot ----------------------------------------------------------------------------
# make usb SIGN_KEY=db.key SIGN_CERT=db.crt: the image holds pmucal signed with that key (its
# signature checked before it is used); make keys: a PK/KEK/db set of your own in
# $(B)/keys to enrol (README "Secure Boot"); make signed-snakeoil: the images signed with
# Debian's OVMF test key that run-qemu.sh --secure-boot and make test boot.
SIGN_KEY  ?=
SIGN_CERT ?=
usb_image = efi=$(1); if [ -n '$(SIGN_KEY)' ]; then \
	[ -n '$(SIGN_CERT)' ] || { echo "usb: SIGN_KEY needs SIGN_CERT (the certificate of that key)"; exit 1; }; \
	tools/sign.sh sign '$(SIGN_KEY)' '$(SIGN_CERT)' $(1) $(1:.efi=.signed.efi) || exit 1; \
	efi=$(1:.efi=.signed.efi); fi; tools/mkimage.sh $(2) $$efi
keys:
	$(Q)tools/sign.sh keys $(B)/keys

# ---- the version string ---------------------------------------------------------------------
# Every object gets -DPMUCAL_VERSION; the files that print or record it are rebuilt when it
# changes (a new commit, a tree that turns dirty or clean), through a stamp rewritten only
# then. Without it a results file could carry the version of the build that last compiled
# app/latency.c.
VERSIONED_SRCS := app/pmucal.c app/latency.c host/pmucal_host.c host/pmucal_table.c
VERSION_STAMP  := $(B)/version.stamp
$(VERSION_STAMP): FORCE
	$(Q)mkdir -p $(@D)
	$(Q)echo '$(VERSION)' | cmp -s - $@ || echo '$(VERSION)' > $@
$(call efi_obj,$(VERSIONED_SRCS)) $(call host_obj,$(VERSIONED_SRCS)) \
$(call test_obj,$(VERSIONED_SRCS)) $(patsubst %,$(B)/aarch64/obj/%.o,$(basename $(VERSIONED_SRCS))): \
	$(VERSION_STAMP)
FORCE:
.PHONY: FORCE

# ---- host builds ---------------------------------------------------------------------------
$(B)/efi/bench/%.o $(B)/host/obj/bench/%.o $(B)/test/obj/bench/%.o: \
	XFLAGS = $(BENCH_CFLAGS)

$(B)/host/obj/%.o: %.c
	$(Q)mkdir -p $(@D)
	$(say) CC $<
	$(Q)$(HOST_CC) $(HOST_CFLAGS) $(XFLAGS) -c $< -o $@

$(B)/test/obj/%.o: %.c
	$(Q)mkdir -p $(@D)
	$(say) CC $<
	$(Q)$(HOST_CC) $(TEST_CFLAGS) $(XFLAGS) -c $< -o $@

$(B)/host/obj/layers.a: $(call host_obj,$(PORTABLE_SRCS) $(SYMS_NONE_SRC))
	$(say) AR $@
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(B)/host/libpmucal.a: $(call host_obj,$(LIBPMUCAL_SRCS))
	$(say) AR $@
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(B)/host/pmucal-table: $(call host_obj,$(PMUCAL_TABLE_SRCS)) $(B)/host/libpmucal.a \
                        $(B)/host/obj/layers.a
	$(say) LINK $@
	$(Q)$(HOST_CC) $^ -o $@ -ljansson -lm

$(B)/host/pmucal-host: $(call host_obj,$(PMUCAL_HOST_SRCS)) $(B)/host/obj/layers.a
	$(say) LINK $@
	$(Q)$(HOST_CC) $^ -o $@ -lpthread

host: $(B)/host/pmucal-host $(B)/host/pmucal-table $(B)/host/libpmucal.a

# libpmucal as a shared library: only the functions the headers mark PMUCAL_API are exported
# (-fvisibility=hidden); the soname carries the major version (host/include/pmucal/pmucal.h).
LIBPMUCAL_VERSION := $(shell awk '/define PMUCAL_VERSION_(MAJOR|MINOR|PATCH) / { v = v s $$3; s = "." } \
                       END { print v }' host/include/pmucal/pmucal.h)
LIBPMUCAL_SONAME := libpmucal.so.$(firstword $(subst ., ,$(LIBPMUCAL_VERSION)))
LIBPMUCAL_SO := $(B)/host/libpmucal.so.$(LIBPMUCAL_VERSION)
$(call host_obj,$(LIBPMUCAL_SRCS)): XFLAGS = -fvisibility=hidden
$(LIBPMUCAL_SO): $(call host_obj,$(LIBPMUCAL_SRCS))
	$(say) LINK $@
	$(Q)$(HOST_CC) -shared -Wl,-soname,$(LIBPMUCAL_SONAME) -Wl,--no-undefined $^ -o $@ \
		-ljansson -lm
host: $(LIBPMUCAL_SO) $(B)/host/install/pmucal-table

# The installed pmucal-table runs with the installed shared library, which it finds through its
# RUNPATH $ORIGIN/../lib: bin/ and lib/ of one PREFIX, wherever DESTDIR or a later move puts
# them, with no LD_LIBRARY_PATH and no ldconfig. (The build tree's pmucal-table is static.)
$(B)/host/install/pmucal-table: $(call host_obj,$(PMUCAL_TABLE_SRCS)) $(B)/host/obj/layers.a $(LIBPMUCAL_SO)
	$(Q)mkdir -p $(@D)
	$(say) LINK $@
	$(Q)$(HOST_CC) $^ -Wl,-rpath,'$$ORIGIN/../lib' -o $@ -ljansson -lm

# make install PREFIX=DIR (DESTDIR too): headers, static and shared library, pkg-config file,
# pmucal-table. docs/libpmucal.md says how to build against them.
PREFIX ?= /usr/local
install: host $(B)/host/install/pmucal-table
	$(say) INSTALL $(DESTDIR)$(PREFIX)
	$(Q)install -d $(DESTDIR)$(PREFIX)/include/pmucal $(DESTDIR)$(PREFIX)/lib/pkgconfig \
		$(DESTDIR)$(PREFIX)/bin
	$(Q)install -m 644 host/include/pmucal/pmucal.h host/include/pmucal/files.h host/include/pmucal/table.h \
		host/include/pmucal/tlb.h host/include/pmucal/numa.h \
		host/include/pmucal/source.h $(DESTDIR)$(PREFIX)/include/pmucal/
	$(Q)install -m 644 $(B)/host/libpmucal.a $(DESTDIR)$(PREFIX)/lib/
	$(Q)install -m 755 $(LIBPMUCAL_SO) $(DESTDIR)$(PREFIX)/lib/
	$(Q)ln -sf $(notdir $(LIBPMUCAL_SO)) $(DESTDIR)$(PREFIX)/lib/$(LIBPMUCAL_SONAME)
	$(Q)ln -sf $(LIBPMUCAL_SONAME) $(DESTDIR)$(PREFIX)/lib/libpmucal.so
	$(Q)sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(LIBPMUCAL_VERSION)|' host/pmucal.pc.in \
		> $(DESTDIR)$(PREFIX)/lib/pkgconfig/pmucal.pc
	$(Q)install -m 755 $(B)/host/install/pmucal-table $(DESTDIR)$(PREFIX)/bin/

# ---- tests ---------------------------------------------------------------------------------
$(B)/test/layers.a: $(call test_obj,$(TEST_LAYER_SRCS))
	$(say) AR $@
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(B)/test/support.a: $(call test_obj,$(TEST_SUPPORT_SRCS))
	$(say) AR $@
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(B)/host/tests/test_%: $(B)/test/obj/tests/test_%.o $(B)/test/layers.a $(B)/test/support.a $(UNITTESTS_MK) \
                        $$(call test_obj,$$(or $$(TEST_MSR_$$*),tests/fake_msr.c) $$(TEST_EXTRA_$$*))
	$(Q)mkdir -p $(@D)
	$(say) LINK $@
	$(Q)$(HOST_CC) $(filter %.o,$^) -Wl,--start-group $(filter %.a,$^) -Wl,--end-group \
		-o $@ $(TEST_LDFLAGS_$*) $(TEST_LIBS)

$(B)/fuzz/fuzz_%: tests/fuzz_%.c $$(FUZZ_SRCS_$$*)
	$(Q)mkdir -p $(@D)
	$(say) FUZZ $@
	$(Q)$(CLANG) $(FUZZ_CFLAGS) $^ -o $@ $(FUZZ_LIBS)

$(B)/host/record_tlb: $(call test_obj,$(RECORD_TLB_SRCS) tests/fake_msr_none.c) $(B)/test/layers.a $(B)/test/support.a
	$(say) LINK $@
	$(Q)$(HOST_CC) $(filter %.o,$^) -Wl,--start-group $(filter %.a,$^) -Wl,--end-group -o $@

# The kernels (bench/ with their pinned flags), for the valgrind count of tests/test_oracle.sh.
$(B)/host/oracle_kernels: $(call test_obj,tests/oracle_kernels.c tests/fake_msr_none.c) \
                          $(B)/test/layers.a $(B)/test/support.a
	$(say) LINK $@
	$(Q)$(HOST_CC) $(filter %.o,$^) -Wl,--start-group $(filter %.a,$^) -Wl,--end-group \
		$(TEST_LIBS) -o $@

$(B)/host/acpi_decode: $(call test_obj,$(ACPI_DECODE_SRCS) tests/fake_msr_none.c) $(B)/test/layers.a $(B)/test/support.a
	$(say) LINK $@
	$(Q)$(HOST_CC) $(filter %.o,$^) -Wl,--start-group $(filter %.a,$^) -Wl,--end-group -o $@

$(B)/host/bench_sampling: $(call host_obj,$(BENCH_SAMPLING_SRCS)) $(B)/host/obj/layers.a
	$(say) LINK $@
	$(Q)$(HOST_CC) $^ -o $@ -lpthread

unit: $(TEST_BINS)

# ---- coverage ------------------------------------------------------------------------------
# make coverage: the host unit tests built with gcov instrumentation under build/cov, each run
# once from the repository root, then per-file line coverage of the program's layers printed
# by gcovr (Debian package gcovr; make deps does not install it).
COV_B := $(B)/cov
coverage:
	$(Q)command -v gcovr >/dev/null || { echo "coverage: gcovr missing (apt-get install gcovr)"; exit 1; }
	$(Q)rm -rf $(COV_B)
	$(Q)$(MAKE) --no-print-directory B=$(COV_B) COV_FLAGS=--coverage \
		$(patsubst $(B)/%,$(COV_B)/%,$(TEST_BINS))
	$(Q)fails=0; for t in $(patsubst $(B)/%,$(COV_B)/%,$(TEST_BINS)); do \
		$$t >/dev/null 2>&1 || { echo "coverage: $$t failed"; fails=$$((fails + 1)); }; done; \
		echo "coverage: $$fails test binaries failed"
	$(Q)gcovr -r . --object-directory $(COV_B)/test/obj -f 'app/' -f 'pmu/' -f 'boot/' \
		-f 'bench/' -f 'report/' -f 'lib/' -f 'host/' --txt --sort-percentage
fuzz: $(FUZZ_BINS)

# make test: everything built on every CPU (JOBS, default the CPU count), then
# tests/run-tests.sh. The unit tests and the CLI cases run once, built with the sanitizers
# below; `make unit` builds them plain for a quick look and `make coverage` with gcov.
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
test: deps
	$(Q)$(MAKE) --no-print-directory -j$(JOBS) check-layering all usb fuzz host test-asan-build
	$(Q)$(MAKE) --no-print-directory $(QS) signed-snakeoil
	$(Q)$(MAKE) --no-print-directory -j$(JOBS) ARCH=aarch64 all
	$(Q)$(MAKE) --no-print-directory $(QS) ARCH=aarch64 signed-snakeoil
	$(Q)JOBS=$(JOBS) tests/run-tests.sh

# Sanitizers: the host tests and the CLI programs built under $(B)/asan with AddressSanitizer
# (leaks included) and UndefinedBehaviorSanitizer, every report fatal (the fuzzers carry both
# already). `make test` builds and runs them; `make test-asan` runs the unit tests and the CLI
# cases alone.
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
test-asan-build:
	$(Q)$(MAKE) --no-print-directory B=$(B)/asan HOST_CC="$(HOST_CC) $(SAN_FLAGS)" \
		unit $(B)/asan/host/pmucal-table $(B)/asan/host/pmucal-host
test-asan: test-asan-build
	$(Q)B=$(B) ONLY=asan tests/run-tests.sh

check-layering:
	$(Q)$(PYTHON) tools/check_layering.py

# ---- aarch64 ---------------------------------------------------------------------------------
# `make ARCH=aarch64`: build/aarch64/pmucal.efi, the same program (app/pmucal.c) on the
# AArch64 platform (boot/arm64/, boot/uefi/arm64/uefi_arm64.c), the PMUv3 driver (pmu/arm64/)
# and the AArch64 kernel bodies (bench/arm64/), built with the cross compiler. `make deps`
# installs the compiler, QEMU and AAVMF and unpacks GNU-EFI for arm64 under
# build/aarch64/gnu-efi (it cannot be installed beside the amd64 package).
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
PMU_arm64_SRCS := \
	pmu/arm64/clock.c \
	pmu/arm64/pmu_arm64.c \
	pmu/arm64/pmu_common.c
BENCH_arm64_SRCS := \
	bench/arm64/c2c_ops.c \
	bench/arm64/kernel_addchain.c \
	bench/arm64/kernel_branch.c \
	bench/arm64/kernel_chase.c \
	bench/arm64/kernel_load_arm64.c \
	bench/arm64/kernel_skid.c \
	bench/arm64/tlb_ctl.c \
	bench/arm64/window_arm64.c
BOOT_UEFI_arm64_SRCS := \
	boot/uefi/arm64/uefi_arm64.c \
	boot/uefi/uefi_con.c \
	boot/uefi/uefi_file.c \
	boot/uefi/uefi_libc.c \
	boot/uefi/uefi_main.c \
	boot/uefi/uefi_mem.c \
	boot/uefi/uefi_mem_node.c \
	boot/uefi/uefi_mp.c \
	boot/uefi/uefi_net.c \
	boot/uefi/uefi_status.c \
	boot/uefi/uefi_tables.c \
	boot/uefi/uefi_time.c
# The shared program (app/pmucal.c: config, phases, results) with the AArch64 phases:
# inventory through app/arm64/gather.c, selftest and pmu on the PMUv3, and the phases not
# ported yet SKIPping with their reason (app/arm64/phases.c). The x86-64 phases
# (APP_x86_SRCS) and, in report/x86/, the precise-sampling checks (IBS, PEBS, LBR) and the
# CPUID dump's writer are left out.
# The harness's own page tables (bench/ownpt.c, shared by the latency sweep and the PMU suite)
# are built in the x86-64 format on both; on AArch64 boot/ refuses to load them
# (cpu_page_tables_load: ST_UNSUPPORTED), so that builder comes along too.
BENCH_x86_PAGING_SRCS := bench/x86/pagetable.c
APP_arm64_SRCS := \
	app/arm64/validate.c \
	app/arm64/gather.c \
	app/arm64/latency_clock.c \
	app/arm64/phases.c \
	app/arm64/pmu.c \
	app/arm64/tlb.c \
	app/arm64/selftest.c
A64_SRCS := $(LIB_SRCS) $(BOOT_SRCS) \
            $(BOOT_arm64_PURE_SRCS) $(BOOT_arm64_CPU_SRCS) $(BOOT_UEFI_arm64_SRCS) \
            $(PMU_SRCS) $(SYMS_NONE_SRC) $(PMU_arm64_SRCS) \
            $(BENCH_SRCS) $(BENCH_arm64_SRCS) $(BENCH_x86_PAGING_SRCS) \
            $(REPORT_SRCS) $(APP_SRCS) $(APP_arm64_SRCS)
a64_obj = $(patsubst %,$(B)/aarch64/obj/%.o,$(basename $(1)))

$(B)/aarch64/obj/bench/%.o: XFLAGS = $(BENCH_CFLAGS)
$(B)/aarch64/obj/%.o: %.c
	$(Q)mkdir -p $(@D)
	$(say) CC64 $<
	$(Q)$(A64_CROSS)gcc $(A64_CFLAGS) $(XFLAGS) -c $< -o $@
$(B)/aarch64/obj/%.o: %.S
	$(Q)mkdir -p $(@D)
	$(say) AS64 $<
	$(Q)$(A64_CROSS)gcc $(A64_CFLAGS) -c $< -o $@
$(B)/aarch64/pmucal.so: $(call a64_obj,$(A64_SRCS))
	$(say) LD64 $@
	$(Q)$(A64_CROSS)ld $(A64_LDFLAGS) $(A64_GNUEFI)/lib/crt0-efi-aarch64.o $^ -o $@ \
		-lefi -lgnuefi $(shell $(A64_CROSS)gcc -print-libgcc-file-name)
$(B)/aarch64/pmucal.efi: $(B)/aarch64/pmucal.so
	$(say) OBJCOPY $@
	$(Q)$(A64_CROSS)objcopy $(A64_SECTIONS) -O binary $< $@
	$(Q)echo "built $@ ($(VERSION))"
check-deps-aarch64:
	$(Q)[ -e $(A64_GNUEFI)/lib/crt0-efi-aarch64.o ] && command -v $(A64_CROSS)gcc >/dev/null || \
		{ echo "pmucal: the aarch64 cross toolchain or GNU-EFI for arm64 is missing:" \
		       "run 'make deps'"; exit 1; }
.PHONY: deps-aarch64 check-deps-aarch64
deps: deps-aarch64
deps-aarch64:
	$(Q)tools/install-deps.sh --gnuefi-arm64 $(B)/aarch64/gnu-efi gcc-aarch64-linux-gnu \
		qemu-system-arm qemu-efi-aarch64

# ---- benchmarks and plots ------------------------------------------------------------------
# Every benchmark prints its figures; a missed target (bench-latency's stability) fails the
# goal at the end, after the others have run.
BENCHES := bench-latency bench-tlb bench-pmu bench-sampling bench-numa bench-classify bench-report \
           bench-aarch64 bench-mutate bench-fleet
bench:
	$(Q)rc=0; for b in $(BENCHES); do $(MAKE) --no-print-directory $$b || rc=1; done; exit $$rc

bench-latency: all host
	$(Q)BENCH_EFI=$(B)/pmucal.efi tools/bench.sh $(B)/host/pmucal-host

bench-tlb: host
	$(Q)tools/bench-tlb.sh $(B)

bench-pmu: all
	$(Q)tools/bench-pmu.sh $(B)

# Boot-to-exit of the AArch64 smoke and validation runs, the smoke run at EL1 and at EL2 side
# by side (wall time, checks decided, counts), the suite's time, and whether ten validation
# runs under -icount count exactly alike (tools/bench-aarch64.sh).
bench-aarch64:
	$(Q)$(MAKE) --no-print-directory ARCH=aarch64 all
	$(Q)tools/bench-aarch64.sh $(B)

bench-sampling: $(B)/host/bench_sampling
	$(Q)tools/bench-sampling.sh $(B)/host/bench_sampling

bench-numa: all host
	$(Q)tools/bench-numa.sh $(B)

# The collector with a simulated fleet over loopback into a throw-away PostgreSQL:
# uploads/s, p50/p99 upload latency, the outlier report's time for 10,000 machines, planted
# outliers found and missed (tools/bench-fleet.py; FLEET_* variables size it).
bench-fleet:
	$(Q)/usr/bin/python3 tools/bench-fleet.py

bench-classify: $(B)/host/pmucal-table
	$(Q)tools/bench-classify.sh $(B)
bench-report: $(B)/host/pmucal-table
	$(Q)tools/bench-report.sh $(B)

# Mutation testing (tools/mutate.py): each mutant of tools/mutants.txt applied alone to a copy
# of the tree under $(B)/mutate, the unit tests that execute the mutated lines (one coverage
# run tells) run on it; the kill rate overall and by file, and every survivor. JOBS workers
# (default the CPU count). Not part of make test: it takes tens of minutes.
# MUTATE_ARGS: e.g. --only app/numa.c, or --check to test the snippets without building.
mutate:
	$(Q)JOBS=$(JOBS) $(PYTHON) tools/mutate.py $(MUTATE_ARGS)

# In make bench: the figures and the wall time; a kill rate under the target fails the goal.
bench-mutate:
	$(Q)mkdir -p $(B); JOBS=$(JOBS) $(PYTHON) tools/mutate.py $(MUTATE_ARGS) > $(B)/mutate.log 2>&1; \
	rc=$$?; grep -vE '^mutate: \[' $(B)/mutate.log; echo "bench: mutation log in $(B)/mutate.log"; \
	exit $$rc

PLOT_FORMAT ?= png
plot:
	$(Q)PLOT_FORMAT=$(PLOT_FORMAT) tools/plot.sh $(RESULTS)

clean:
	rm -rf $(B)

-include $(shell find $(B) -name '*.d' 2>/dev/null)
