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

set(TALLY_SANITIZER_FLAGS "")
if(TALLY_SANITIZE STREQUAL "address")
  set(TALLY_SANITIZER_FLAGS -fsanitize=address,undefined -fno-sanitize-recover=undefined
                            -fno-omit-frame-pointer)
elseif(TALLY_SANITIZE STREQUAL "thread")
  set(TALLY_SANITIZER_FLAGS -fsanitize=thread -fno-omit-frame-pointer)
elseif(NOT TALLY_SANITIZE STREQUAL "")
  message(FATAL_ERROR "TALLY_SANITIZE must be '', 'address' or 'thread', not '${TALLY_SANITIZE}'")
endif()
if(TALLY_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang" OR NOT TALLY_SANITIZE STREQUAL "address")
    message(FATAL_ERROR "TALLY_FUZZ needs clang and TALLY_SANITIZE=address (scripts/build --preset asan)")
  endif()
  list(APPEND TALLY_SANITIZER_FLAGS -fsanitize=fuzzer-no-link)
endif()

function(_tally_common_flags target)
  target_compile_options(${target} PRIVATE ${TALLY_WARNINGS} ${TALLY_SANITIZER_FLAGS})
  target_link_options(${target} PRIVATE ${TALLY_SANITIZER_FLAGS})
  target_include_directories(${target} PUBLIC ${PROJECT_SOURCE_DIR})
endfunction()

# tally_cc_library(NAME name SRCS a.cc ... DEPS lib ...)
function(tally_cc_library)
  cmake_parse_arguments(ARG "" "NAME" "SRCS;DEPS" ${ARGN})
  add_library(${ARG_NAME} STATIC ${ARG_SRCS})
  _tally_common_flags(${ARG_NAME})
  target_link_libraries(${ARG_NAME} PUBLIC ${ARG_DEPS})
endfunction()

# tally_cc_binary(NAME name SRCS main.cc DEPS lib ...): links mimalloc unless sanitizers are on
# (the allocator is a deployment choice, and ASan/TSan need their own malloc).
function(tally_cc_binary)
  cmake_parse_arguments(ARG "" "NAME" "SRCS;DEPS" ${ARGN})
  add_executable(${ARG_NAME} ${ARG_SRCS})
  _tally_common_flags(${ARG_NAME})
  target_link_libraries(${ARG_NAME} PRIVATE ${ARG_DEPS})
  if(TALLY_SANITIZE STREQUAL "" AND TARGET mimalloc)
    target_link_libraries(${ARG_NAME} PRIVATE mimalloc)
    target_compile_definitions(${ARG_NAME} PRIVATE TALLY_WITH_MIMALLOC=1)
  endif()
endfunction()

# tally_cc_test(NAME name SRCS a_test.cc DEPS lib ... [LABELS l ...])
function(tally_cc_test)
  cmake_parse_arguments(ARG "" "NAME" "SRCS;DEPS;LABELS" ${ARGN})
  add_executable(${ARG_NAME} ${ARG_SRCS})
  _tally_common_flags(${ARG_NAME})
  # A test's own code at -O1 in a Release build (after -O3 on the command line, so it wins): the
  # libraries it tests keep -O3, and its gtest expansions and oracles compile in about 60 % of
  # the time (CI builds every test twice; 2026-12-01: 8.7 -> 5.6 s for queue_manager_test.cc).
  if(CMAKE_BUILD_TYPE STREQUAL "Release")
    target_compile_options(${ARG_NAME} PRIVATE -O1)
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
