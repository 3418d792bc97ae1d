# The two commands a newcomer types: `make demo` and `make check`. Both
# install the Debian packages they need, build with CMake and run.
BUILD ?= build
JOBS ?= $(shell nproc)
# The compiler, CMake, pkg-config for the install test, python3 for the
# profile checks, and the MLIR 22 tools (mlir-opt, mlir-translate, llc) that
# lower the test kernels.
PACKAGES = gcc libc6-dev make cmake pkg-config python3 mlir-22-tools llvm-22

.PHONY: all deps build check demo bench install clean

all: build

deps:
	@sh tools/install-deps.sh $(PACKAGES)

build: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo
	cmake --build $(BUILD) -j $(JOBS)

check: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

demo: build
	BUDDY_THREAD_POOL_PROFILE=1 $(BUILD)/examples/demo

# Benchmarks print numbers; nothing here is a pass/fail test.
bench: build
	sh bench/profile-overhead.sh $(BUILD) 7 300

install: build
	cmake --install $(BUILD)

clean:
	rm -rf $(BUILD)
