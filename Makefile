# pmucal: one top-level Makefile (no recursive make). All output goes under build/.
#
#   make            build/pmucal.efi
#   make run        install missing Debian packages, build, boot it in QEMU/OVMF
#   make test       host unit tests + fuzz smoke + QEMU smoke boots; ends "N passed, N failed"
#   make usb        build/pmucal.img, a GPT disk with an ESP to dd onto a USB stick
#   make host       build/host/pmucal-host (kernels + analysis under Linux) and pmucal-table
#   make bench      benchmark figures (not a timed test)
#   make deps       apt-get install what the build and the tests need
#   make check-layering   fail if a UEFI header is used outside boot/

# ---- variables --------------------------------------------------------------------------
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
RESULTS    ?= build/run/results
FUZZ_SECONDS ?= 20

B := build
VERSION := $(shell git describe --always --dirty 2>/dev/null || echo unknown)

# Debian packages the build, run and tests need (make deps installs them).
DEB_PACKAGES := gnu-efi ovmf qemu-system-x86 mtools dosfstools gdisk libcmocka-dev \
                libjansson-dev clang libclang-rt-14-dev gnuplot-nox python3 acpica-tools \
                binutils make gcc

WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wno-unused-parameter
COMMON_CFLAGS := -std=gnu11 -MMD -MP -fno-strict-aliasing $(WARN) -DPMUCAL_VERSION='"$(VERSION)"'

# The firmware build. -mno-red-zone is mandatory: the #GP/#UD and PMI handlers run on the
# interrupted stack. MS ABI lets us call UEFI services directly.
EFI_CFLAGS := $(COMMON_CFLAGS) -O2 -ffreestanding -fpic -fshort-wchar -mno-red-zone \
              -fno-stack-protector -fno-builtin-printf -mgeneral-regs-only \
              -DGNU_EFI_USE_MS_ABI -isystem $(GNUEFI_INC) -isystem $(GNUEFI_INC)/x86_64
EFI_LDFLAGS := -nostdlib -znocombreloc -T $(GNUEFI_LIB)/elf_x86_64_efi.lds -shared \
               -Bsymbolic -L$(GNUEFI_LIB)
# The measurement kernels: flags pinned here so that editing the global flags does not
# change what is being measured.
BENCH_CFLAGS := -O2 -fno-tree-vectorize -fno-unroll-loops -fno-omit-frame-pointer

HOST_CFLAGS := $(COMMON_CFLAGS) -O2 -g
HOST_TEST_CFLAGS := $(HOST_CFLAGS) -Wno-missing-prototypes

# ---- sources -----------------------------------------------------------------------------
# Portable code: compiled for the firmware and for the host alike.
BOOT_PORTABLE := boot/status.c boot/config.c boot/acpi.c boot/acpi_hmat.c boot/smbios.c
REPORT_SRCS   := report/fmt.c report/rep.c report/json.c report/inventory.c report/inventory_json.c report/stats.c
PMU_SRCS      := pmu/cpuid.c pmu/cpuid_cache.c
BENCH_SRCS    :=
APP_SRCS      := app/pmucal.c app/selftest.c app/gather.c
PORTABLE_SRCS = $(BOOT_PORTABLE) $(REPORT_SRCS) $(PMU_SRCS) $(BENCH_SRCS) $(APP_SRCS)

# UEFI glue (the only files that include <efi.h>) and the real-CPU accessors.
BOOT_UEFI_SRCS := boot/uefi_main.c boot/uefi_con.c boot/uefi_file.c boot/uefi_tables.c \
                  boot/uefi_mp.c boot/uefi_excl.c boot/uefi_libc.c boot/uefi_status.c
BOOT_UEFI_ASM  := boot/trap_x86_64.S
PMU_CPU_SRCS   := pmu/msr_cpu.c

EFI_OBJS = $(patsubst %.c,$(B)/efi/%.o,$(PORTABLE_SRCS) $(BOOT_UEFI_SRCS) $(PMU_CPU_SRCS)) \
            $(patsubst %.S,$(B)/efi/%.o,$(BOOT_UEFI_ASM))

# Host unit tests: tests/test_<name>.c, linked with the portable files it names below plus
# the fake platform. Every test here is built and run by `make test`.
TEST_COMMON := boot/status.c report/fmt.c report/rep.c report/stats.c tests/fake_plat.c \
               tests/test_util.c
TEST_DEPS_stats   := report/stats.c
TEST_DEPS_fmt     := report/fmt.c
TEST_DEPS_rep     := report/rep.c
TEST_DEPS_json    := report/json.c
TEST_DEPS_config  := boot/config.c
TEST_DEPS_cpuid   := pmu/cpuid.c pmu/cpuid_cache.c tests/cpuid_dump.c
TEST_DEPS_acpi    := boot/acpi.c boot/acpi_hmat.c
TEST_DEPS_smbios  := boot/smbios.c
TEST_DEPS_inventory := report/inventory.c report/inventory_json.c report/json.c pmu/cpuid.c \
                       pmu/cpuid_cache.c tests/cpuid_dump.c \
                       boot/acpi.c boot/acpi_hmat.c boot/smbios.c
TEST_LIBS_inventory := -ljansson
TEST_DEPS_app     := app/pmucal.c app/selftest.c app/gather.c report/inventory.c \
                     report/inventory_json.c report/json.c \
                     pmu/cpuid.c pmu/cpuid_cache.c boot/acpi.c boot/acpi_hmat.c boot/smbios.c boot/config.c \
                     tests/fake_msr_none.c
TEST_LIBS_app     := -ljansson
TESTS := fmt rep json config cpuid acpi smbios inventory app stats

# libFuzzer targets (clang): tests/fuzz_<name>.c with a corpus in tests/corpus/<name>/.
FUZZERS := config acpi
FUZZ_DEPS_config := boot/config.c boot/status.c
FUZZ_DEPS_acpi   := boot/acpi.c boot/acpi_hmat.c boot/status.c boot/smbios.c report/fmt.c

# >>> module registrations: each module adds its own block below (sources, TEST_DEPS_x,
# >>> `TESTS += x`, FUZZERS += x); keep blocks self-contained and in this region.

# config (helper-3): config_to_json needs the JSON writer; the fuzzer links directly with
# clang, so it needs a platform. FUZZ_DEPS_config is (re)assigned with := below this region,
# so the extra sources are added as prerequisites (the fuzz link uses $^).
TEST_DEPS_config += report/json.c
TEST_LIBS_json := -ljansson
TEST_LIBS_config := -ljansson
$(B)/fuzz/fuzz_config: tests/fake_plat.c report/rep.c report/fmt.c report/json.c

# bench (helper-4): pointer-chase chain, kernel, window guard, sweep planning and runner.
BENCH_SRCS += bench/chain.c bench/kernel_chase.c bench/window.c bench/sweep.c \
              bench/prefetch.c bench/measure.c
TEST_DEPS_chain := bench/chain.c
TEST_DEPS_sweep := bench/sweep.c bench/window.c tests/fake_msr_none.c
TEST_DEPS_prefetch := bench/prefetch.c bench/window.c tests/fake_msr.c
TESTS += chain sweep prefetch

# tlb (helper-7): page tables, dTLB/iTLB plans and kernels, TLB curve analysis.
BENCH_SRCS += bench/pagetable.c bench/tlb.c bench/kernel_tlb.c
REPORT_SRCS += report/tlbdetect.c report/tlbdetect_out.c
TEST_DEPS_pagetable := bench/pagetable.c
TEST_DEPS_tlb := bench/tlb.c
TEST_DEPS_tlbdetect := report/tlbdetect.c report/tlbdetect_out.c report/json.c bench/tlb.c pmu/cpuid.c \
                       pmu/cpuid_cache.c tests/cpuid_dump.c
TEST_LIBS_tlbdetect := -ljansson
TESTS += pagetable tlb tlbdetect
# tlb phase (hc): own page tables + sweeps in the firmware, shared analysis (app/tlb_out.c).
APP_SRCS += app/tlb.c app/tlb_out.c
TEST_DEPS_app += app/tlb.c app/tlb_out.c bench/pagetable.c bench/tlb.c bench/kernel_tlb.c \
                 report/tlbdetect.c report/tlbdetect_out.c

# pmu (helper-6): generated event tables, encoding, drivers, sampling, validation suite.
# build/events_gen.c is generated from pmu/events/ and compiled like any portable source:
# listed in PMU_SRCS it maps to $(B)/efi/build/events_gen.o through `$(B)/efi/%.o: %.c`,
# and in TEST_DEPS_x to $(B)/host/build/events_gen.o through `$(B)/host/%.o: %.c`.
PMU_EVENTS_GEN := $(B)/events_gen.c
PMU_SRCS += pmu/events.c pmu/encode.c pmu/pmu.c pmu/drv_intel.c pmu/drv_amd.c pmu/sample.c \
            pmu/validate.c $(PMU_EVENTS_GEN)
BENCH_SRCS += bench/kernel_branch.c bench/kernel_pmu.c
$(PMU_EVENTS_GEN): pmu/gen_events.py $(wildcard pmu/events/*.json) pmu/events/mapfile.csv
	@mkdir -p $(@D)
	$(PYTHON) pmu/gen_events.py pmu/events $@
PMU_TEST_CORE := pmu/pmu.c pmu/drv_intel.c pmu/drv_amd.c pmu/encode.c pmu/events.c \
                 $(PMU_EVENTS_GEN) tests/fake_msr.c
TEST_DEPS_encode := pmu/encode.c
TEST_DEPS_events := pmu/events.c $(PMU_EVENTS_GEN)
TEST_DEPS_pmu_intel := $(PMU_TEST_CORE)
TEST_DEPS_pmu_amd := $(PMU_TEST_CORE)
TEST_DEPS_sample := pmu/sample.c $(PMU_TEST_CORE)
TEST_DEPS_validate := pmu/validate.c report/json.c bench/kernel_branch.c bench/kernel_pmu.c \
                      $(PMU_TEST_CORE)
TEST_LIBS_validate := -ljansson
TESTS += encode pmu_intel pmu_amd events sample validate
# pmu phase (hb): PMI route (NMI through LVT PMC, boot/uefi_pmi.c), memory checks, overflow
# sampling run, the phase; the symbol table comes from a two-pass link (rules at the end).
PMU_SYMS_GEN := $(B)/syms_gen.c
PMU_SRCS += pmu/validate_mem.c pmu/sample_run.c $(PMU_SYMS_GEN)
BENCH_SRCS += bench/kernel_skid.c
BOOT_PORTABLE += boot/apic.c
BOOT_UEFI_SRCS += boot/uefi_pmi.c
BOOT_UEFI_ASM += boot/pmi_x86_64.S
APP_SRCS += app/pmu.c
PMU_VALIDATE_DEPS := pmu/validate.c pmu/validate_mem.c report/json.c bench/kernel_branch.c \
                     bench/kernel_pmu.c bench/chain.c bench/kernel_chase.c bench/window.c
TEST_DEPS_validate += pmu/validate_mem.c bench/chain.c bench/kernel_chase.c bench/window.c
TEST_DEPS_sample += pmu/sample_run.c bench/kernel_skid.c bench/kernel_branch.c
# own page tables (hb2): shared by the TLB phase and the dTLB page chase (bench/ownpt.c).
BENCH_SRCS += bench/ownpt.c
PMU_VALIDATE_DEPS += bench/ownpt.c bench/pagetable.c bench/kernel_tlb.c bench/tlb.c
TEST_DEPS_validate += bench/ownpt.c bench/pagetable.c bench/kernel_tlb.c bench/tlb.c
TEST_DEPS_apic := boot/apic.c
TESTS += apic
TEST_DEPS_app += app/pmu.c pmu/sample.c pmu/sample_run.c pmu/syms_none.c bench/kernel_skid.c \
                 pmu/pmu.c pmu/drv_intel.c pmu/drv_amd.c pmu/encode.c pmu/events.c \
                 $(PMU_EVENTS_GEN) $(PMU_VALIDATE_DEPS)

# precise sampling (helper-8): IBS / PEBS / LBR record programming and decoding, reports.
PMU_SRCS += pmu/ibs.c pmu/pebs.c pmu/lbr.c
REPORT_SRCS += report/samples.c report/samples_check.c
TEST_DEPS_ibs := pmu/ibs.c
TEST_DEPS_pebs := pmu/pebs.c
TEST_DEPS_lbr := pmu/lbr.c
TEST_DEPS_samples := report/samples.c report/samples_check.c pmu/lbr.c
TESTS += ibs pebs lbr samples

# latency levels (helper-5): level detection, latency-table writers, libpmucal consumer.
REPORT_SRCS += report/levels.c report/lattable.c
TEST_DEPS_levels := report/levels.c pmu/cpuid.c pmu/cpuid_cache.c tests/cpuid_dump.c
TEST_LIBS_levels := -lm
TEST_DEPS_lattable := report/lattable.c report/levels.c report/json.c report/libpmucal.c
TEST_LIBS_lattable := -ljansson -lm
TEST_DEPS_libpmucal := report/libpmucal.c
TEST_LIBS_libpmucal := -ljansson -lm
TESTS += levels lattable libpmucal
FUZZERS += table
FUZZ_DEPS_table := report/libpmucal.c
FUZZ_LIBS_table := -ljansson -lm

# latency phase (ha): the sweep, level detection and table in the firmware run (app/latency.c).
APP_SRCS += app/latency.c
TEST_DEPS_app += app/latency.c bench/chain.c bench/kernel_chase.c bench/window.c bench/sweep.c \
                 bench/prefetch.c bench/measure.c report/levels.c report/lattable.c
# make bench also times the QEMU quick-profile boot of this build's pmucal.efi (tools/bench.sh).
bench: all
bench: export BENCH_EFI = $(B)/pmucal.efi
# latency buffer page size (hf): config latency_pages, the buffer through the harness's own
# page tables, CR3 switched inside each window (app/latency_pages.c).
APP_SRCS += app/latency_pages.c
TEST_DEPS_app += app/latency_pages.c
TEST_DEPS_latpages := app/latency_pages.c bench/ownpt.c bench/pagetable.c bench/kernel_tlb.c \
                      bench/tlb.c bench/chain.c bench/kernel_chase.c bench/window.c \
                      bench/sweep.c bench/prefetch.c bench/measure.c pmu/cpuid.c \
                      pmu/cpuid_cache.c tests/fake_msr_none.c
TESTS += latpages

# sampling phase (hd): IBS / PEBS / LBR sessions, validation against the chase and the
# fixed-cost block kernel, sampling-validation.json (app/sampling*.c).
SAMPLING_APP := app/sampling.c app/sampling_log.c app/sampling_chase.c app/sampling_run.c \
                app/sampling_ibs.c app/sampling_pebs.c app/sampling_lbr.c
APP_SRCS += $(SAMPLING_APP)
BENCH_SRCS += bench/kernel_block.c
TEST_DEPS_sampling := app/sampling_log.c app/sampling_ibs.c app/sampling_pebs.c \
                      app/sampling_lbr.c report/samples.c report/samples_check.c report/json.c \
                      pmu/ibs.c pmu/pebs.c \
                      pmu/lbr.c $(PMU_TEST_CORE) bench/kernel_block.c report/levels.c \
                      pmu/cpuid.c pmu/cpuid_cache.c
TEST_LIBS_sampling := -ljansson
TESTS += sampling
TEST_DEPS_app += $(SAMPLING_APP) bench/kernel_block.c pmu/ibs.c pmu/pebs.c pmu/lbr.c \
                 report/samples.c report/samples_check.c

# <<< end of module registrations

TEST_BINS := $(patsubst %,$(B)/host/tests/test_%,$(TESTS))

FUZZ_BINS := $(patsubst %,$(B)/fuzz/fuzz_%,$(FUZZERS))

host:

.PHONY: all run test unit fuzz smoke usb host bench plot deps check-deps check-layering clean
.DEFAULT_GOAL := all

all: check-deps $(B)/pmucal.efi

# ---- dependencies ------------------------------------------------------------------------
check-deps:
	@missing=""; \
	for f in $(GNUEFI_INC)/efi.h $(GNUEFI_LIB)/crt0-efi-x86_64.o $(GNUEFI_LIB)/libefi.a; do \
		[ -e $$f ] || missing="$$missing $$f"; done; \
	if [ -n "$$missing" ]; then \
		echo "pmucal: GNU-EFI is missing ($$missing)."; \
		echo "pmucal: run 'make deps' (apt-get install $(DEB_PACKAGES))"; exit 1; fi

deps:
	@tools/install-deps.sh $(DEB_PACKAGES)

# ---- the firmware application ------------------------------------------------------------
$(B)/efi/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(EFI_CFLAGS) -c $< -o $@

$(B)/efi/bench/%.o: bench/%.c
	@mkdir -p $(@D)
	$(CC) $(EFI_CFLAGS) $(BENCH_CFLAGS) -c $< -o $@

$(B)/efi/%.o: %.S
	@mkdir -p $(@D)
	$(CC) $(EFI_CFLAGS) -c $< -o $@

$(B)/pmucal.so: $(EFI_OBJS)
	$(LD) $(EFI_LDFLAGS) $(GNUEFI_LIB)/crt0-efi-x86_64.o $(EFI_OBJS) -o $@ \
		-lefi -lgnuefi $(shell $(CC) -print-libgcc-file-name)

$(B)/pmucal.efi: $(B)/pmucal.so
	$(OBJCOPY) -j .text -j .sdata -j .data -j .dynamic -j .dynsym -j .rel -j .rela \
		-j .rel.* -j .rela.* -j .reloc --target efi-app-x86_64 --subsystem=10 $< $@
	@echo "built $@ ($(VERSION))"

run: deps
	$(MAKE) all
	./run-qemu.sh --out $(B)/run/results $(RUN_ARGS)

usb: all
	tools/mkimage.sh $(B)/pmucal.img $(B)/pmucal.efi

# ---- host builds and tests ---------------------------------------------------------------
$(B)/host/%.o: %.c
	@mkdir -p $(@D)
	$(HOST_CC) $(HOST_TEST_CFLAGS) -c $< -o $@

$(B)/host/bench/%.o: bench/%.c
	@mkdir -p $(@D)
	$(HOST_CC) $(HOST_TEST_CFLAGS) $(BENCH_CFLAGS) -c $< -o $@

define TEST_template
$(B)/host/tests/test_$(1): $(patsubst %.c,$(B)/host/%.o,$(sort tests/test_$(1).c $(TEST_COMMON) $(TEST_DEPS_$(1))))
	$$(HOST_CC) $$^ -o $$@ -lcmocka $(TEST_LIBS_$(1))
endef
$(foreach t,$(TESTS),$(eval $(call TEST_template,$(t))))

define FUZZ_template
$(B)/fuzz/fuzz_$(1): tests/fuzz_$(1).c $(FUZZ_DEPS_$(1))
	@mkdir -p $$(@D)
	$$(CLANG) -std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined $$^ -o $$@ $(FUZZ_LIBS_$(1))
endef
$(foreach f,$(FUZZERS),$(eval $(call FUZZ_template,$(f))))

unit: $(TEST_BINS)
fuzz: $(FUZZ_BINS)

test: deps
	$(MAKE) check-layering all usb unit fuzz host
	@tests/run-tests.sh

check-layering:
	@bad=$$(grep -rlE '#include *<efi(lib)?\.h>|\bCHAR16\b|\bEFI_STATUS\b|uefi_call_wrapper' \
		--include='*.[ch]' --include='*.S' . | grep -v '^\./boot/uefi_' | grep -v '^\./build/' ); \
	if [ -n "$$bad" ]; then echo "layering: UEFI types outside boot/uefi_*: $$bad"; exit 1; fi; \
	echo "layering: ok"

clean:
	rm -rf $(B)

# record_tlb (helper-7, host-only): runs the TLB kernels under Linux and prints tlb-curve.csv;
# used to record tests/data/curves/host-*-dtlb-*.csv.
RECORD_TLB_SRCS := report/stats.c tests/record_tlb.c bench/tlb.c bench/kernel_tlb.c report/tlbdetect.c \
                   report/tlbdetect_out.c \
                   report/json.c report/fmt.c report/rep.c boot/status.c tests/fake_plat.c
$(B)/host/record_tlb: $(patsubst %.c,$(B)/host/%.o,$(RECORD_TLB_SRCS))
	$(HOST_CC) $^ -o $@

# pmucal-host (helper-4): the latency sweep under Linux, linked from host-compiled objects
# (bench/ objects get BENCH_CFLAGS through the $(B)/host/bench/%.o rule).
PMUCAL_HOST_SRCS := report/stats.c app/host_main.c boot/linux_plat.c boot/linux_msr.c boot/status.c \
                    report/fmt.c report/rep.c report/levels.c report/lattable.c \
                    report/json.c boot/smbios.c pmu/cpuid.c pmu/cpuid_cache.c \
                    bench/chain.c bench/kernel_chase.c bench/window.c bench/sweep.c \
                    bench/prefetch.c bench/measure.c
$(B)/host/pmucal-host: $(patsubst %.c,$(B)/host/%.o,$(PMUCAL_HOST_SRCS))
	$(HOST_CC) $^ -o $@
host: $(B)/host/pmucal-host
unit: $(B)/host/pmucal-host   # tests/test_hosted.sh (make test, shell stage) runs it
bench: host
	@tools/bench.sh $(B)/host/pmucal-host

# libpmucal + pmucal-table (helper-5, host-only): the latency-table consumer library and CLI;
# `make plot RESULTS=DIR` draws DIR/latency-curve.csv with DIR/latency-table.json.
$(B)/host/libpmucal.a: $(B)/host/report/libpmucal.o
	$(AR) rcs $@ $^
$(B)/host/pmucal-table: $(B)/host/report/pmucal_table.o $(B)/host/pmu/cpuid.o $(B)/host/pmu/cpuid_cache.o \
                        $(B)/host/boot/status.o $(B)/host/libpmucal.a
	$(HOST_CC) $^ -o $@ -ljansson -lm
host: $(B)/host/pmucal-table $(B)/host/libpmucal.a
plot:
	tools/plot.sh $(RESULTS)

# tlb, hosted (hc): `pmucal-host --tlb` (app/tlb_host.c) and `make bench-tlb`.
$(B)/host/pmucal-host: $(patsubst %.c,$(B)/host/%.o,app/tlb_host.c app/tlb_out.c bench/tlb.c \
                       bench/kernel_tlb.c report/tlbdetect.c report/tlbdetect_out.c)
.PHONY: bench-tlb
$(B)/host/libpmucal.a: $(B)/host/report/libpmucal_tlb.o
# (TEST_DEPS_libpmucal is assigned with := after the tlb block, so the TLB part of the test
# comes in as extra prerequisites; the test link uses $^.)
$(B)/host/tests/test_libpmucal: $(patsubst %.c,$(B)/host/%.o,report/libpmucal_tlb.c \
                                report/tlbdetect.c report/tlbdetect_out.c report/json.c bench/tlb.c \
                                pmu/cpuid.c pmu/cpuid_cache.c)
bench: bench-tlb
bench-tlb: host
	@tools/bench-tlb.sh $(B)

# pmu symbol table (hb): link once with an empty table, `nm` that image into $(B)/syms_gen.c,
# link again with it (the $(B)/pmucal.so rule). The table only adds data, after .text, so
# function addresses cannot move between the passes; $(B)/syms.ok proves it on every build.
PMU_SYMS_OBJ := $(B)/efi/$(PMU_SYMS_GEN:.c=.o)
$(B)/pmucal-pass1.so: $(filter-out $(PMU_SYMS_OBJ),$(EFI_OBJS)) $(B)/efi/pmu/syms_none.o
	$(LD) $(EFI_LDFLAGS) $(GNUEFI_LIB)/crt0-efi-x86_64.o $^ -o $@ \
		-lefi -lgnuefi $(shell $(CC) -print-libgcc-file-name)
$(PMU_SYMS_GEN): $(B)/pmucal-pass1.so tools/gen_syms.py
	nm --defined-only $< | $(PYTHON) tools/gen_syms.py > $@.tmp && mv $@.tmp $@
$(B)/syms.ok: $(B)/pmucal.so $(B)/pmucal-pass1.so
	@nm --defined-only $(B)/pmucal-pass1.so | awk '$$2 ~ /^[Tt]$$/' | sort > $@.1
	@nm --defined-only $(B)/pmucal.so | awk '$$2 ~ /^[Tt]$$/' | sort > $@.2
	@cmp -s $@.1 $@.2 || { echo "symbol table: function addresses moved between link passes"; \
		diff $@.1 $@.2 | head; exit 1; }
	@touch $@
all: $(B)/syms.ok
.PHONY: bench-pmu
bench: bench-pmu
bench-pmu: all
	@tools/bench-pmu.sh $(B)

# bench-sampling (hd, host-only): decode rate of the IBS / PEBS / LBR decoders over synthetic
# records, and the interrupt cost where a results folder from hardware is given.
.PHONY: bench-sampling
BENCH_SAMPLING_SRCS := tests/bench_sampling.c pmu/ibs.c pmu/pebs.c pmu/lbr.c
$(B)/host/bench_sampling: $(patsubst %.c,$(B)/host/%.o,$(BENCH_SAMPLING_SRCS))
	$(HOST_CC) $^ -o $@
bench: bench-sampling
bench-sampling: $(B)/host/bench_sampling
	@tools/bench-sampling.sh $(B)/host/bench_sampling

-include $(shell find $(B) -name '*.d' 2>/dev/null)
