# The two commands a newcomer types: `make demo` and `make check`. Both
# install the Debian packages they need, build with CMake and run.
BUILD ?= build
JOBS ?= $(shell nproc)
# The compiler, CMake, pkg-config for the install test, python3 for the
# profile checks, the MLIR 22 tools (mlir-opt, mlir-translate, llc) that
# lower the test kernels, and clang 22 with LLVM's libomp for the builds the
# benchmarks compare (libgomp comes with gcc); libnuma for `buddypool run
# --numa`, elfutils for the names in `buddypool report`, Chromium for the
# test that loads its HTML report, and gfortran for the Fortran API's test.
PACKAGES = gcc libc6-dev make cmake pkg-config python3 mlir-22-tools llvm-22 \
	clang-22 libomp-22-dev libnuma1 chromium elfutils gfortran
# Real libraries built for libgomp that the tests run on the pool (tests/libs):
# the OpenMP build of OpenBLAS, which the tests load by its path and not
# through the libblas alternatives (the package registers its alternative on
# install, as Debian's BLAS packages do), and oneDNN.
LIB_PACKAGES = libopenblas0-openmp libopenblas-openmp-dev libdnnl-dev
# gcc's ASan and UBSan runtimes and clang's TSan runtime (check-sanitize);
# cross compilers, their C libraries and qemu-user (check-cross).
SAN_PACKAGES = libasan8 libubsan1 libclang-rt-22-dev
CROSS_PACKAGES = gcc-riscv64-linux-gnu libc6-dev-riscv64-cross \
	gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user

.PHONY: all deps lib-deps build check check-sanitize check-cross demo bench bench-quick install clean

all: build

deps:
	@sh tools/install-deps.sh $(PACKAGES)

build: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo
	cmake --build $(BUILD) -j $(JOBS)

# The libraries before the build: CMake looks for them when it configures.
lib-deps:
	@sh tools/install-deps.sh $(LIB_PACKAGES)

check: lib-deps build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# The suite again under ASan+UBSan and under TSan (build-asan, build-tsan),
# and the portable tests cross-built for riscv64 and aarch64 under
# qemu-user (build-cross-*). .ci/run runs all three checks.
check-sanitize: deps lib-deps
	@sh tools/install-deps.sh $(SAN_PACKAGES)
	sh tools/check-sanitize.sh

check-cross:
	@sh tools/install-deps.sh cmake make $(CROSS_PACKAGES)
	sh tools/check-cross.sh

# The decode benchmark's default model (Qwen3-shaped, 28 layers, synthetic
# weights) on the pool, with its profile (printed at exit, region functions
# as module+offset), then the same profile with the functions named from the
# program's symbols, and an HTML page with the timeline of one decode step.
demo: build
	BUDDY_THREAD_POOL_PROFILE=1 BUDDY_THREAD_POOL_PROFILE_OUT=$(BUILD)/demo-profile.json \
	BUDDY_THREAD_POOL_TRACE=$(BUILD)/demo-trace.json \
		$(BUILD)/bench/decode/decode-buddypool --config default
	$(BUILD)/buddypool report $(BUILD)/demo-profile.json --top 8
	$(BUILD)/buddypool report $(BUILD)/demo-profile.json --trace $(BUILD)/demo-trace.json \
		--html $(BUILD)/demo-profile.html
	@echo "make demo: the timeline of a decode step is in $(BUILD)/demo-profile.html"

# Benchmarks print numbers; nothing here is a pass/fail test. `bench` is the
# full comparison for the README (tens of minutes); `bench-quick` a look in
# about a minute. Tables, raw runs and a plot go to $(BUILD)/bench-results.
bench: build
	python3 bench/compare.py $(BUILD) --only overhead,decode,idle,graph
	python3 bench/contention.py $(BUILD) --rounds 7
	python3 bench/contention.py $(BUILD) --bench decode --rounds 7
	python3 bench/teams.py $(BUILD) --rounds 7
	sh bench/profile-overhead.sh $(BUILD) 7 300

bench-quick: build
	python3 bench/compare.py $(BUILD) --quick

install: build
	cmake --install $(BUILD)

clean:
	rm -rf $(BUILD) build-asan build-tsan build-cross-riscv64 build-cross-aarch64 \
		build-cross-portable
