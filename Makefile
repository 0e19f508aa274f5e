# pmucal: this Makefile and the fragments under mk/, one make (nothing recursive but `make
# test`'s own steps); docs/architecture.md says what each folder owns. All output goes under
# build/. Quiet by default (one short line per step); `make V=1` shows every command, those
# of the sub-makes too.
#
#   make            build/pmucal.efi (ARCH=aarch64: build/aarch64/pmucal.efi)
#   make run        install missing Debian packages, build, boot it in QEMU/OVMF
#   make test       layering check, host unit tests, shell tests, fuzzers, QEMU boots;
#                   ends with one line "N passed, N failed"
#   make usb        build/pmucal.img, a GPT disk with an ESP to dd onto a USB stick
#   make host       pmucal-host, pmucal-table, libpmucal.a and libpmucal.so (release flags)
#   make install    PREFIX=DIR: headers, libpmucal (static, shared, pkg-config), pmucal-table
#   make unit       the host unit tests, plain (make test builds them with the sanitizers)
#   make coverage   host unit tests with gcov; per-file line coverage (needs gcovr)
#   make bench      benchmark figures (not a timed test)
#   make mutate     mutation testing of the verdict code: kill rate of tools/mutants.txt
#   make plot       draw the newest results (RESULTS=DIR for another)
#   make deps       apt-get install what the build and the tests need
#   make keys       a Secure Boot key set of your own (README "Secure Boot")
#   make check-layering   the include graph and hardware access follow the layers
#   make check-names      every exported symbol carries its layer's prefix (after the builds)
#
# Where things are:
#   mk/common.mk    flags, the one source list of the code every architecture shares
#   mk/x86_64.mk    the x86-64 files of each folder; build/pmucal.efi
#   mk/aarch64.mk   the AArch64 files of each folder; build/aarch64/pmucal.efi
#   mk/host.mk      pmucal-host, pmucal-table, libpmucal, make install
#   mk/tests.mk     unit tests (linked as tests/unittests.cfg says), fuzzers, make test
#   mk/bench.mk     make bench, make mutate, make plot

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
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)

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

.PHONY: all run test unit coverage fuzz usb host bench bench-latency bench-tlb bench-pmu \
        bench-sampling bench-numa bench-classify bench-report bench-aarch64 bench-mutate mutate \
        plot deps deps-aarch64 check-deps check-deps-x86_64 check-deps-aarch64 check-layering check-names \
        clean test-asan test-asan-build install keys signed-snakeoil
.DEFAULT_GOAL := all

include mk/common.mk mk/x86_64.mk mk/aarch64.mk mk/host.mk mk/tests.mk mk/bench.mk

ifeq ($(IMAGE_$(ARCH)),)
$(error ARCH=$(ARCH): pmucal builds for x86_64 or aarch64)
endif

# ---- the firmware application of ARCH ------------------------------------------------------
all: check-deps $(FIRMWARE_$(ARCH))
check-deps: check-deps-$(ARCH)

deps:
	$(Q)tools/install-deps.sh $(DEB_PACKAGES)

run: deps
	$(Q)$(MAKE) --no-print-directory $(QS) all
	./run-qemu.sh $(RUN_ARGS_$(ARCH)) --out $(B)/run/results $(RUN_ARGS)

usb: all
	$(say) IMAGE $(OUT_$(ARCH))/pmucal.img
	$(Q)$(call usb_image,$(IMAGE_$(ARCH)),$(OUT_$(ARCH))/pmucal.img)

signed-snakeoil: all
	$(Q)tools/sign.sh snakeoil $(OUT_$(ARCH))/sb $(IMAGE_$(ARCH))

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

# The files that print or record the version are rebuilt when it changes (mk/common.mk), in
# every build's object folder.
$(foreach d,$(OBJ_DIRS),$(patsubst %,$(d)/%.o,$(basename $(VERSIONED_SRCS)))): $(VERSION_STAMP)

clean:
	rm -rf $(B)

-include $(shell find $(B) -name '*.d' 2>/dev/null)
