# The two commands of the README: `make run` and `make test`.
BUILD ?= build
BUILD_ASAN ?= build-asan
# -g1 (line tables) is enough for backtraces and profiles, and compiles much faster than -g.
CMAKE_FLAGS ?= -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG"
# Through ccache (scripts/setup installs it), in a cache of the checkout's
# own: the test code compiles to the same objects in the release and the
# sanitizer tree (tests/CMakeLists.txt), so the second tree takes them from
# the cache. Paths relative to the checkout, and no working directory in the
# hash, make the two trees' commands the same.
CMAKE_FLAGS += "-DCMAKE_CXX_COMPILER_LAUNCHER=env;CCACHE_BASEDIR=$(CURDIR);CCACHE_NOHASHDIR=1;CCACHE_DIR=$(CURDIR)/.ccache;ccache"
JOBS ?= $(shell nproc)
# Most tests wait on anvil's blocks and on child processes, not on a core.
TEST_JOBS ?= $(shell echo $$(( $(JOBS) + 1 )))

BUILD_COVERAGE ?= build-coverage

.PHONY: setup build build-asan run test test-fast test-asan chaos pkcs11-long coverage fuzz bench package package-reproducible clean

setup:
	@scripts/setup

build: setup
	@cmake -S . -B $(BUILD) $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

build-asan: setup
	@cmake -S . -B $(BUILD_ASAN) $(CMAKE_FLAGS) -DABCI_SANITIZE=ON -DABCI_BUILD_BENCH=OFF >/dev/null
	@cmake --build $(BUILD_ASAN) -j $(JOBS)

# The main job: the API server on 127.0.0.1:8080 with its own devnet (anvil,
# contract deployed); Ctrl-C stops both. The README shows the curl lines.
# Every ABCI_* setting reaches it, from the environment or as a make variable:
# `make run ABCI_LISTEN=127.0.0.1:9090` picks another port (man abcictl, ENVIRONMENT).
run: build
	@$(BUILD)/src/abcictl serve --devnet

test-fast: build
	@ctest --test-dir $(BUILD) --output-on-failure -j $(TEST_JOBS)

test-asan: build-asan
	@ctest --test-dir $(BUILD_ASAN) --output-on-failure -j $(TEST_JOBS)

# The whole suite: once as built for release, once under ASan+UBSan.
test: test-fast test-asan

# The chaos suite at full size (tests/chaos/figures.cpp: 66 runs, 19,800 mints
# in bursts of 300: 25 kill -9 runs (5 of them with keyless mints), every
# JSON-RPC fault kind, anvil restarts, reorgs, chain resets, an unfunded
# signer; half as many again of each with [mint_batching] on), and three
# replicas on PostgreSQL behind haproxy under 1,000 mints while the lane owner
# is killed 8 times, frozen once and the database restarted (replicas_test.cpp),
# on the release build; prints the table of figures and the failover times.
# Webhooks: 300 async mints whose mint.confirmed must reach a receiver
# failing every third first attempt and hanging one for 30 s
# (webhooks_test.cpp). Then the kill -9, JSON-RPC fault, anvil restart and
# replicas scenarios again at full size with the server signing through a
# SoftHSM2 token (ABCI_TEST_SIGNER; each replica logs in to the one token, as
# replicas sharing an HSM do); and three replicas on PostgreSQL sharing the
# webhook deliveries, the one holding delivery leases killed (over a minute:
# its leases must run out). ABCI_CHAOS_SEED replays a run.
chaos: setup
	@cmake -S . -B $(BUILD) $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS) --target abcictl chaos_tests
	@ABCI_CHAOS_SCALE=full $(BUILD)/tests/chaos_tests
	@ABCI_TEST_SIGNER=pkcs11 ABCI_CHAOS_SCALE=full $(BUILD)/tests/chaos_tests "[kill],[rpc],[anvil],[replicas]"
	@ABCI_CHAOS_SCALE=full $(BUILD)/tests/chaos_tests "[webhook-failover]"

# 10,000 signatures of a SoftHSM2 token, each low-s and recovering the key's
# address (the test command signs 500); about 2 minutes.
pkcs11-long: setup
	@cmake -S . -B $(BUILD) $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS) --target abcictl integration_tests
	@ABCI_PKCS11_SIGNATURES=10000 $(BUILD)/tests/integration_tests "pkcs11 signer: a key pkcs11-tool made*"

# Line and branch coverage of src/ by every suite (its own instrumented tree,
# -O0), printed per source folder by gcovr; the chaos suite runs reduced.
coverage: setup
	@cmake -S . -B $(BUILD_COVERAGE) -G Ninja -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_CXX_FLAGS_DEBUG=-O0 -g1" \
	  -DABCI_COVERAGE=ON -DABCI_BUILD_BENCH=OFF >/dev/null
	@cmake --build $(BUILD_COVERAGE) -j $(JOBS)
	@find $(BUILD_COVERAGE) -name '*.gcda' -delete
	@ctest --test-dir $(BUILD_COVERAGE) -j $(TEST_JOBS) --timeout 600 >$(BUILD_COVERAGE)/ctest.log || \
	  { tail -20 $(BUILD_COVERAGE)/ctest.log; exit 1; }
	@scripts/coverage-report $(BUILD_COVERAGE)

# Every fuzz target (tests/fuzz) for SECONDS each (default 10 minutes) under
# libFuzzer, ASan and UBSan, in its own clang tree (build-fuzz); prints the
# table of executions, coverage and crashes. `make test` only replays the corpora.
SECONDS ?= 600
fuzz: setup
	@scripts/fuzz $(SECONDS)

# The Debian package abcictl_<version>-<revision>_amd64.deb in the checkout,
# from the release tree: `apt install ./abcictl_*.deb` (README "Installing
# the package"). `make test` checks it with lintian and an install, upgrade,
# remove and purge (tests/package, as root).
package: setup
	@cmake -S . -B $(BUILD) $(CMAKE_FLAGS) >/dev/null
	@scripts/package $(BUILD) .

# Two clones of this commit in different directories, each built from
# scratch (no ccache) at a different time and packed: prints both packages'
# SHA-256 and fails unless they are the same bytes (diffoscope, when
# installed, says where they differ). About two full compiles of abcictl.
package-reproducible: setup
	@scripts/package-reproducible

# Builds its own Release tree (build-bench) and prints the table of ratios.
bench:
	@bench/run

clean:
	rm -rf $(BUILD) $(BUILD_ASAN) $(BUILD_COVERAGE) build-fuzz
