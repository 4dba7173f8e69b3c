# One helper per target kind. Every target gets the same warnings and sanitizer flags, so
# adding a library, test or benchmark is one call and never a copy of compiler options.

set(TALLY_WARNINGS -Wall -Wextra -Wshadow -Wnon-virtual-dtor -Wimplicit-fallthrough)
if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  # Locks annotated in engine/base/mutex.h are checked at compile time.
  list(APPEND TALLY_WARNINGS -Wthread-safety)
endif()
if(TALLY_WERROR)
  list(APPEND TALLY_WARNINGS -Werror)
endif()

# Links by lld where the compiler can use it (Debian's `lld`, installed by scripts/setup):
# 2026-12-07, a libFuzzer target of the ASan build 2.1 -> 0.7 s, `tally` in Release 0.7 -> 0.35 s;
# the ASan build has 112 links, 173 s of compiler-driver time of its 1,032 s in CI's clean build.
# A linker lays out the code the compiler generated: the performance gate's instruction counts
# do not move. Without lld (or with -DTALLY_LLD=OFF) the system's default linker.
option(TALLY_LLD "Link with lld when the compiler can" ON)
if(TALLY_LLD)
  include(CheckLinkerFlag)
  check_linker_flag(CXX -fuse-ld=lld TALLY_LINKER_LLD_WORKS)
  if(TALLY_LINKER_LLD_WORKS)
    add_link_options(-fuse-ld=lld)
  endif()
endif()

# Precompiled headers (the tests' shared one below, the command line's in replay/cli), in clang
# builds only: g++ 12 loses the system-header status of what comes from its precompiled header,
# so its -Warray-bounds and -Wstringop-overflow false positives inside std::string fail the
# -Werror build, and clang-tidy cannot read g++'s .gch files in a release build's compile commands.
if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  option(TALLY_PCH "Precompiled headers for the tests and the command line (faster builds)" ON)
else()
  option(TALLY_PCH "Precompiled headers for the tests and the command line (faster builds)" OFF)
endif()

set(TALLY_SANITIZER_FLAGS "")
if(TALLY_SANITIZE STREQUAL "address")
  set(TALLY_SANITIZER_FLAGS -fsanitize=address,undefined -fno-sanitize-recover=undefined
                            -fno-omit-frame-pointer)
elseif(TALLY_SANITIZE STREQUAL "thread")
  set(TALLY_SANITIZER_FLAGS -fsanitize=thread -fno-omit-frame-pointer)
elseif(NOT TALLY_SANITIZE STREQUAL "")
  message(FATAL_ERROR "TALLY_SANITIZE must be '', 'address' or 'thread', not '${TALLY_SANITIZE}'")
endif()
# Coverage instrumentation for libFuzzer: the libraries and fuzz targets get it, so that one build
# serves tests and fuzzing; the tests' own code does not (nothing fuzzes it).
set(TALLY_FUZZ_COVERAGE_FLAGS "")
if(TALLY_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang" OR NOT TALLY_SANITIZE STREQUAL "address")
    message(FATAL_ERROR "TALLY_FUZZ needs clang and TALLY_SANITIZE=address (scripts/build --preset asan)")
  endif()
  set(TALLY_FUZZ_COVERAGE_FLAGS -fsanitize=fuzzer-no-link)
endif()

# _tally_common_flags(target [NO_FUZZ_COVERAGE]): NO_FUZZ_COVERAGE leaves the target's own code
# uninstrumented; it is linked with the coverage flags all the same, since the libraries it links
# carry the callbacks.
function(_tally_common_flags target)
  cmake_parse_arguments(ARG "NO_FUZZ_COVERAGE" "" "" ${ARGN})
  set(coverage ${TALLY_FUZZ_COVERAGE_FLAGS})
  if(ARG_NO_FUZZ_COVERAGE)
    set(coverage "")
  endif()
  target_compile_options(${target} PRIVATE ${TALLY_WARNINGS} ${TALLY_SANITIZER_FLAGS} ${coverage})
  target_link_options(${target} PRIVATE ${TALLY_SANITIZER_FLAGS} ${TALLY_FUZZ_COVERAGE_FLAGS})
  target_include_directories(${target} PUBLIC ${PROJECT_SOURCE_DIR})
endfunction()

# Unity builds of the libraries and the binaries (TALLY_UNITY, on in the asan and tsan presets):
# eight sources compiled as one, so the headers they share are parsed, and their inline code
# optimised, once per eight files instead of once per file (2026-12-06: libraries and `tally`
# with release flags, 586 -> under 300 s of compiler time; the ASan build, 710 -> 487 s). The
# release preset keeps one object per source for all but the COLD targets below: its code
# generation is what the benchmarks and the performance gate measure, and it is the build that
# would catch a source missing an #include.
option(TALLY_UNITY "Compile the libraries and binaries eight sources at a time" OFF)
# The targets marked COLD are compiled eight sources at a time in every build, the release one
# too: the command line, the reports, sweeps, generators and importers, which run once per
# command, outside the replay's loop. Their one object per source bought nothing the benchmarks
# or the performance gate measure, and cost a third of the release build's compiler time
# (2026-12-07: 416 of 1,617 s in CI's clean build). The hot libraries (engine, io, sim) keep one
# object per source: built as a unity, the gate's replays ran 3-4 % more instructions.

# _tally_unity(target cold): `cold` is the target's COLD argument (TRUE or FALSE).
function(_tally_unity target cold)
  if(TALLY_UNITY OR cold)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 8)
  endif()
endfunction()

# tally_cc_library(NAME name SRCS a.cc ... DEPS lib ... [COLD])
function(tally_cc_library)
  cmake_parse_arguments(ARG "COLD" "NAME" "SRCS;DEPS" ${ARGN})
  add_library(${ARG_NAME} STATIC ${ARG_SRCS})
  _tally_common_flags(${ARG_NAME})
  _tally_unity(${ARG_NAME} ${ARG_COLD})
  target_link_libraries(${ARG_NAME} PUBLIC ${ARG_DEPS})
endfunction()

# tally_cc_binary(NAME name SRCS main.cc DEPS lib ... [COLD]): links mimalloc unless sanitizers
# are on (the allocator is a deployment choice, and ASan/TSan need their own malloc).
function(tally_cc_binary)
  cmake_parse_arguments(ARG "COLD" "NAME" "SRCS;DEPS" ${ARGN})
  add_executable(${ARG_NAME} ${ARG_SRCS})
  _tally_common_flags(${ARG_NAME})
  _tally_unity(${ARG_NAME} ${ARG_COLD})
  target_link_libraries(${ARG_NAME} PRIVATE ${ARG_DEPS})
  if(TALLY_SANITIZE STREQUAL "" AND TARGET mimalloc)
    target_link_libraries(${ARG_NAME} PRIVATE mimalloc)
    target_compile_definitions(${ARG_NAME} PRIVATE TALLY_WITH_MIMALLOC=1)
  endif()
endfunction()

# What every test is compiled with; the precompiled-header host below gets the same, since a
# precompiled header is only used by a compilation with matching flags. No fuzzing coverage: no
# fuzzer runs a test's own code.
function(_tally_test_flags target)
  _tally_common_flags(${target} NO_FUZZ_COVERAGE)
  # A test's own code at -O1 in a Release build (after -O3 on the command line, so it wins): the
  # libraries it tests keep -O3, and its gtest expansions and oracles compile in about 60 % of
  # the time (CI builds every test twice; 2026-12-01: 8.7 -> 5.6 s for queue_manager_test.cc).
  if(CMAKE_BUILD_TYPE STREQUAL "Release")
    target_compile_options(${target} PRIVATE -O1)
  endif()
  # Under ASan + UBSan, the test's own code at -O0 without coverage instrumentation: the libraries
  # keep -O1, and a test compiles in half the time (2026-12-06, clang 14, four tests: 39.9 ->
  # 19.4 s), the sanitizers' checks unchanged. TSan keeps -O1 (its build has nine tests, and
  # this was not measured there).
  if(TALLY_SANITIZE STREQUAL "address")
    target_compile_options(${target} PRIVATE -O0)
  endif()
  # Where the shipped data is, for the tests that read it.
  target_compile_definitions(${target} PRIVATE TALLY_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  # fmt::fmt for its FMT_SHARED definition, which every test gets through tally_engine.
  target_link_libraries(${target} PRIVATE GTest::gtest fmt::fmt)
endfunction()

# Headers that most tests include and that take seconds to parse (2026-12-06, -fsyntax-only: gtest
# 1.9 s, fmt 1.0 s, these std headers together 1.8 s). Parsed once into the precompiled header of
# tally_test_pch, which every test of a clang build reuses (asan: about a hundred tests; 0.7 to
# 1.7 s saved on each of four tests measured).
set(TALLY_TEST_PCH_HEADERS
    <gtest/gtest.h> <fmt/format.h> <algorithm> <cstdint> <filesystem> <fstream> <map> <memory>
    <optional> <random> <sstream> <string> <string_view> <utility> <vector>)

function(_tally_test_pch_host)
  if(NOT TARGET tally_test_pch)
    add_library(tally_test_pch OBJECT ${PROJECT_SOURCE_DIR}/cmake/pch_host.cc)
    _tally_test_flags(tally_test_pch)
    target_precompile_headers(tally_test_pch PRIVATE ${TALLY_TEST_PCH_HEADERS})
  endif()
endfunction()

# tally_cc_test(NAME name SRCS a_test.cc DEPS lib ... [LABELS l ...] [OPTIMIZE])
#
# OPTIMIZE: the test's own code is its hot path (a brute-force oracle, a long randomised loop), so
# it keeps -O1 under ASan too: compiling it at -O0 saves a few seconds and costs more at run time
# (2026-12-06: resource_tree_property_test ran 52.6 s at -O1, 93.9 s at -O0).
function(tally_cc_test)
  cmake_parse_arguments(ARG "OPTIMIZE" "NAME" "SRCS;DEPS;LABELS" ${ARGN})
  add_executable(${ARG_NAME} ${ARG_SRCS})
  _tally_test_flags(${ARG_NAME})
  set(use_pch ${TALLY_PCH})
  if(ARG_OPTIMIZE AND TALLY_SANITIZE STREQUAL "address")
    target_compile_options(${ARG_NAME} PRIVATE -O1)  # after -O0, so it wins
    set(use_pch OFF)  # the shared precompiled header is built at -O0 and would not load
  endif()
  if(use_pch)
    _tally_test_pch_host()
    target_precompile_headers(${ARG_NAME} REUSE_FROM tally_test_pch)
  endif()
  target_link_libraries(${ARG_NAME} PRIVATE ${ARG_DEPS} GTest::gtest GTest::gtest_main)
  add_test(NAME ${ARG_NAME} COMMAND ${ARG_NAME} WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  if(TALLY_SANITIZE STREQUAL "address")
    # A leak inside libfyaml 0.7.12, not tally's (test/lsan.supp says which and why).
    set_tests_properties(${ARG_NAME} PROPERTIES ENVIRONMENT
                         "LSAN_OPTIONS=suppressions=${PROJECT_SOURCE_DIR}/test/lsan.supp")
  endif()
  if(ARG_LABELS)
    set_tests_properties(${ARG_NAME} PROPERTIES LABELS "${ARG_LABELS}")
  endif()
endfunction()

# tally_cc_bench(NAME name SRCS a_bench.cc DEPS lib ...)
function(tally_cc_bench)
  cmake_parse_arguments(ARG "" "NAME" "SRCS;DEPS" ${ARGN})
  add_executable(${ARG_NAME} ${ARG_SRCS})
  _tally_common_flags(${ARG_NAME})
  target_link_libraries(${ARG_NAME} PRIVATE ${ARG_DEPS} benchmark::benchmark
                                            benchmark::benchmark_main)
endfunction()

# tally_cc_fuzz(NAME name SRCS a_fuzz.cc DEPS lib ...): a libFuzzer binary (TALLY_FUZZ builds only).
# A ctest of the same name runs it once over its seed corpus (`scripts/fuzz --seeds-only`), so the
# reproducers of test/robustness stay regression tests of the fuzz build too.
function(tally_cc_fuzz)
  cmake_parse_arguments(ARG "" "NAME" "SRCS;DEPS" ${ARGN})
  add_executable(${ARG_NAME} ${ARG_SRCS})
  _tally_common_flags(${ARG_NAME})
  target_link_libraries(${ARG_NAME} PRIVATE ${ARG_DEPS})
  target_link_options(${ARG_NAME} PRIVATE -fsanitize=fuzzer)
  add_test(NAME ${ARG_NAME}
           COMMAND ${PROJECT_SOURCE_DIR}/scripts/fuzz --build ${CMAKE_BINARY_DIR} --seeds-only
                   ${ARG_NAME}
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(${ARG_NAME} PROPERTIES LABELS fuzz TIMEOUT 300)
endfunction()
