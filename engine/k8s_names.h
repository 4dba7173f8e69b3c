// File: engine/k8s_names.h
//
// Kubernetes name formats (k8s.io/apimachinery/pkg/util/validation), as predicates plus the
// message Kubernetes prints when one fails. Used by config validation for object names, cohort
// and flavor references (DNS-1123 subdomains), resource names and label keys (qualified names),
// label values and namespaces (DNS-1123 labels).
//
//   IsQualifiedName("nvidia.com/gpu")   // true
//   IsDns1123Subdomain("Team_A")        // false: kDns1123SubdomainRule says why
#pragma once

#include <algorithm>
#include <cstddef>
#include <string_view>

namespace engine {

inline constexpr size_t kMaxDns1123SubdomainLength = 253;
inline constexpr size_t kMaxDns1123LabelLength = 63;  // also names in qualified names, label values

inline constexpr std::string_view kDns1123SubdomainRule =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character";
inline constexpr std::string_view kDns1123LabelRule =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
    "must start and end with an alphanumeric character (at most 63 characters)";
inline constexpr std::string_view kQualifiedNameRule =
    "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start "
    "and end with an alphanumeric character, with an optional DNS subdomain prefix and '/'";
inline constexpr std::string_view kLabelValueRule =
    "a valid label value must be 63 characters or less and must be empty or consist of "
    "alphanumeric characters, '-', '_' or '.', starting and ending with an alphanumeric character";

namespace internal {

constexpr bool IsLowerAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}
constexpr bool IsAlnum(char c) {
  return IsLowerAlnum(c) || (c >= 'A' && c <= 'Z');
}

// [a-z0-9]([-a-z0-9]*[a-z0-9])?, any length.
constexpr bool IsLabelPart(std::string_view s) {
  return !s.empty() && IsLowerAlnum(s.front()) && IsLowerAlnum(s.back())
         && std::all_of(s.begin(), s.end(), [](char c) { return IsLowerAlnum(c) || c == '-'; });
}

// ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9], at most 63 characters.
constexpr bool IsNamePart(std::string_view s) {
  return !s.empty() && s.size() <= kMaxDns1123LabelLength && IsAlnum(s.front()) && IsAlnum(s.back())
         && std::all_of(s.begin(), s.end(),
                        [](char c) { return IsAlnum(c) || c == '-' || c == '_' || c == '.'; });
}

}  // namespace internal

// Object names, cohort and flavor references: dot-separated labels, at most 253 characters.
constexpr bool IsDns1123Subdomain(std::string_view s) {
  if (s.empty() || s.size() > kMaxDns1123SubdomainLength) {
    return false;
  }
  for (size_t start = 0; start <= s.size();) {
    size_t end = std::min(s.find('.', start), s.size());
    if (!internal::IsLabelPart(s.substr(start, end - start))) {
      return false;
    }
    start = end + 1;
  }
  return true;
}

// Namespace names: one label, at most 63 characters.
constexpr bool IsDns1123Label(std::string_view s) {
  return s.size() <= kMaxDns1123LabelLength && internal::IsLabelPart(s);
}

// Resource names and label keys: [prefix/]name, prefix a DNS subdomain.
constexpr bool IsQualifiedName(std::string_view s) {
  const size_t slash = s.find('/');
  if (slash == std::string_view::npos) {
    return internal::IsNamePart(s);
  }
  return IsDns1123Subdomain(s.substr(0, slash)) && internal::IsNamePart(s.substr(slash + 1));
}

constexpr bool IsLabelValue(std::string_view s) {
  return s.empty() || internal::IsNamePart(s);
}

}  // namespace engine
