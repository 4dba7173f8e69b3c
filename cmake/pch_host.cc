// The one source of tally_test_pch (cmake/TallyHelpers.cmake): that target exists only to build the
// precompiled header that every test reuses, so it has nothing of its own to compile.
