// File: replay/io/content_digest.h
//
// A fast 64-bit digest of a byte stream whose value does not depend on how the stream is cut into
// pieces: the replay hashes decisions.jsonl as it writes it (in 1 MiB flushes) and `tally diff`
// and `gate` hash it again as they read it (in 4 MiB blocks). Its hex form is the run id that
// every output file of a replay carries (docs/replay.md "Run id"). Not cryptographic: it catches
// files from different runs, not forgeries.
//
//   ContentDigest d;
//   d.Update("first part"); d.Update(" second part");
//   std::string id = d.Hex();   // 16 lowercase hex digits
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace replay {

class ContentDigest {
 public:
  void Update(std::string_view bytes);
  // The digest of everything given so far (Update may continue afterwards).
  uint64_t Value() const;
  std::string Hex() const;

 private:
  void Mix(uint64_t word);

  uint64_t state_ = 0x9e3779b97f4a7c15ULL;
  uint64_t length_ = 0;
  uint64_t pending_ = 0;  // the bytes of an unfinished 8-byte word, little-endian
  int pending_bytes_ = 0;
};

}  // namespace replay
