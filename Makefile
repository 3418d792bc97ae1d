# The two commands a newcomer types: `make demo` and `make check`. Both
# install the Debian packages they need, build with CMake and run.
BUILD ?= build
JOBS ?= $(shell nproc)
# make demo: the compiler, CMake, python3 for the `buddypool` command and
# elfutils for the names in `buddypool report`. The demo is gcc -fopenmp code
# (cmake/BuddypoolDemo.cmake): no clang, MLIR tools or OpenMP runtime.
DEMO_PACKAGES = gcc libc6-dev make cmake python3 elfutils
# make deb: Debian's packaging tools, help2man for the man page, lintian.
DEB_PACKAGES = dpkg-dev debhelper help2man lintian
# make check, beyond those: pkg-config for the install test, the MLIR 22
# tools (mlir-opt, mlir-translate, llc) that lower the test kernels, and
# clang 22 with LLVM's libomp for the builds the benchmarks compare (libgomp
# comes with gcc); libnuma for `buddypool run --numa`, Chromium for the test
# that loads its HTML report, gfortran for the Fortran API's test, clang's
# and gcc's TSan runtimes for the tests of Archer (LLVM's race detector,
# in libomp-22-dev) on the pool, and the packaging tools for the package
# tests.
PACKAGES = $(DEMO_PACKAGES) pkg-config mlir-22-tools llvm-22 clang-22 libomp-22-dev \
	libclang-rt-22-dev libtsan2 libnuma1 chromium gfortran $(DEB_PACKAGES)
# Real libraries built for libgomp that the tests run on the pool (tests/libs):
# the OpenMP build of OpenBLAS, which the tests load by its path and not
# through the libblas alternatives (the package registers its alternative on
# install, as Debian's BLAS packages do), and oneDNN; and where users deploy
# (tests/deploy): numpy and threadpoolctl for Python's thread control, Open
# MPI for ranks.
LIB_PACKAGES = libopenblas0-openmp libopenblas-openmp-dev libdnnl-dev \
	python3-numpy python3-threadpoolctl openmpi-bin libopenmpi-dev
# gcc's ASan and UBSan runtimes and clang's TSan runtime (check-sanitize);
# cross compilers, their C libraries and qemu-user (check-cross, which also
# cross-builds the Debian packages).
SAN_PACKAGES = libasan8 libubsan1 libclang-rt-22-dev
CROSS_PACKAGES = gcc-riscv64-linux-gnu libc6-dev-riscv64-cross \
	gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user

.PHONY: all deps lib-deps build check check-sanitize check-cross demo deb bench bench-quick install clean

all: build

deps:
	@sh tools/install-deps.sh $(PACKAGES)

build: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBUDDYPOOL_TESTS=ON
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
	@sh tools/install-deps.sh cmake make python3 $(CROSS_PACKAGES) $(DEB_PACKAGES)
	sh tools/check-cross.sh

# The decode benchmark's default model (Qwen3-shaped, 28 layers, synthetic
# weights; gcc -fopenmp objects) on the pool, with its profile (printed at
# exit, region functions as module+offset), then the same profile with the
# functions named from the program's symbols, and an HTML page with the
# timeline of one decode step. A fresh $(BUILD) is configured without the
# tests, which need far more (make check); one make check configured
# serves as it is.
demo:
	@sh tools/install-deps.sh $(DEMO_PACKAGES)
	cmake -S . -B $(BUILD) -DBUDDYPOOL_DEMO=ON $(if $(wildcard $(BUILD)/CMakeCache.txt),,-DBUDDYPOOL_TESTS=OFF)
	cmake --build $(BUILD) -j $(JOBS) --target decode-demo
	BUDDY_THREAD_POOL_PROFILE=1 BUDDY_THREAD_POOL_PROFILE_OUT=$(BUILD)/demo-profile.json \
	BUDDY_THREAD_POOL_TRACE=$(BUILD)/demo-trace.json \
		$(BUILD)/decode-demo --config default
	$(BUILD)/buddypool report $(BUILD)/demo-profile.json --top 8
	$(BUILD)/buddypool report $(BUILD)/demo-profile.json --trace $(BUILD)/demo-trace.json \
		--html $(BUILD)/demo-profile.html
	@echo "make demo: the timeline of a decode step is in $(BUILD)/demo-profile.html"

# Debian packages (libbuddypool0, libbuddypool-dev, buddypool-tools), built
# by dpkg-buildpackage from debian/ in a copy of the tree, into $(BUILD)/deb
# ($(BUILD)/deb-ARCH for a cross build).
# ARCH=riscv64 or ARCH=arm64 cross-builds them with Debian's cross compiler.
deb:
	@sh tools/install-deps.sh gcc libc6-dev make cmake python3 $(DEB_PACKAGES) \
		$(if $(ARCH),gcc-$(if $(filter arm64,$(ARCH)),aarch64,$(ARCH))-linux-gnu libc6-dev-$(ARCH)-cross)
	sh tools/build-deb.sh -o $(BUILD)/deb$(if $(ARCH),-$(ARCH)) -j $(JOBS) $(if $(ARCH),-a $(ARCH))

# Benchmarks print numbers; nothing here is a pass/fail test. `bench` is the
# full comparison for docs/results.md (tens of minutes); `bench-quick` a look in
# about a minute. Tables, raw runs and a plot go to $(BUILD)/bench-results.
bench: build
	python3 bench/compare.py $(BUILD) --only overhead,decode,idle,graph
	python3 bench/contention.py $(BUILD) --rounds 7
	python3 bench/contention.py $(BUILD) --bench decode --rounds 7
	python3 bench/teams.py $(BUILD) --rounds 7
	sh bench/profile-overhead.sh $(BUILD) 7 300
	python3 bench/ompt-cost.py $(BUILD) --rounds 7 --bind
	python3 bench/quota.py $(BUILD) --rounds 5 --tokens 1000 || \
		echo "bench/quota.py: no table (it needs root and a cgroup with the cpu controller)"

bench-quick: build
	python3 bench/compare.py $(BUILD) --quick

install: build
	cmake --install $(BUILD)

clean:
	rm -rf $(BUILD) build-asan build-tsan build-cross-riscv64 build-cross-aarch64 \
		build-cross-portable build-cross-deb-riscv64 build-cross-deb-arm64
