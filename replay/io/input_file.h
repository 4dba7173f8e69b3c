// File: replay/io/input_file.h
//
// Reading an input file whole, plain or gzip (by its magic bytes, not its name): what the
// importers, the audit-log generator and `replay --verify` read their inputs with.
//
// Thread safety: reentrant; no shared state.
#pragma once

#include <cstddef>
#include <string>

#include "engine/base/status.h"

namespace replay {

// A whole input file, decompressed when it is gzip, of at most InputLimits::max_input_bytes
// (replay/io/input_limits.h; more is an error). A truncated or corrupt gzip stream is an
// error, unless `damage` is given: then what could be decompressed is returned and `damage` says
// what went wrong (audit logs are kept whole as far as they read).
engine::StatusOr<std::string> ReadPlainOrGzip(const std::string& path,
                                              std::string* damage = nullptr);

// The block to read `path` in, for gzbuffer and for each read: as large as the file, within
// [4 KiB, 1 MiB]. A small file then does not pay for zeroing and mapping a 1 MiB buffer and
// zlib's 3 MiB of buffers (importers open two files per run, fuzzing opens them per input: a
// third of alibaba_gpu_csv_fuzz's time was that). A gzip file decompresses to more than its
// size; it is then read in more blocks, not with less memory.
size_t ReadBlockFor(const std::string& path);

}  // namespace replay
