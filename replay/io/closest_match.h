// File: replay/io/closest_match.h
//
// "Did you mean ...?": the candidate closest to a mistyped word (a subcommand, a flag, a
// workload's name), by edit distance (swaps of adjacent characters count as one edit), when it is
// close enough to be what was meant: at most a third of the word's length (at least 1, at most 3
// edits), or the word is a prefix of exactly one candidate.
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace replay {

// Optimal string alignment distance: insertions, deletions, substitutions and swaps of two
// adjacent characters (`--eat` for `--eta`) cost 1 each.
inline size_t EditDistance(std::string_view a, std::string_view b) {
  const size_t width = b.size() + 1;
  std::vector<size_t> d((a.size() + 1) * width);
  const auto at = [&](size_t i, size_t j) -> size_t& { return d[i * width + j]; };
  for (size_t i = 0; i <= a.size(); ++i) {
    at(i, 0) = i;
  }
  for (size_t j = 0; j <= b.size(); ++j) {
    at(0, j) = j;
  }
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      at(i, j) = std::min({at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        at(i, j) = std::min(at(i, j), at(i - 2, j - 2) + 1);
      }
    }
  }
  return at(a.size(), b.size());
}

inline std::optional<std::string> ClosestMatch(std::string_view word,
                                               const std::vector<std::string>& candidates) {
  const size_t limit = std::clamp<size_t>(word.size() / 3, 1, 3);
  std::optional<std::string> best;
  size_t best_distance = limit + 1;
  std::vector<const std::string*> prefixed;
  for (const std::string& c : candidates) {
    if (c == word) {
      continue;
    }
    if (!word.empty() && c.size() > word.size() && c.compare(0, word.size(), word) == 0) {
      prefixed.push_back(&c);
    }
    const size_t d = EditDistance(word, c);
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  if (!best && prefixed.size() == 1) {
    best = *prefixed.front();
  }
  return best;
}

}  // namespace replay
