// File: engine/base/small_sort.h
//
// A stable sort for the handful of elements a decision line or a pod set holds (fields of a JSON
// object, resources of a pod set). std::stable_sort asks for a temporary buffer on every call,
// an allocation per decision line; insertion sort needs none and is faster below ~16 elements.
#pragma once

#include <iterator>
#include <utility>

namespace engine {

// Sorts [first, last) by `less`, keeping equal elements in their order. O(n^2): for short ranges.
template <typename It, typename Less>
void SmallStableSort(It first, It last, Less less) {
  if (first == last) {
    return;
  }
  for (It i = std::next(first); i != last; ++i) {
    auto value = std::move(*i);
    It j = i;
    for (; j != first && less(value, *std::prev(j)); --j) {
      *j = std::move(*std::prev(j));
    }
    *j = std::move(value);
  }
}

}  // namespace engine
