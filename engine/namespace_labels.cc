#include "engine/namespace_labels.h"

#include <utility>

namespace engine {

namespace {

constexpr std::string_view kNameLabel = "kubernetes.io/metadata.name";

}  // namespace

NamespaceLabels::NamespaceLabels(const std::vector<NamespaceSpec>& namespaces) {
  Table& table = Writable();
  table.reserve(namespaces.size());
  for (const NamespaceSpec& ns : namespaces) {
    Labels& labels = table[ns.name];
    labels = ns.labels;
    labels[std::string(kNameLabel)] = ns.name;
  }
}

NamespaceLabels NamespaceLabels::Sharing(std::shared_ptr<const Table> table) {
  NamespaceLabels labels;
  labels.shared_ = std::move(table);
  return labels;
}

const NamespaceLabels::Labels* NamespaceLabels::Find(std::string_view name) const {
  if (shared_ == nullptr) {
    return nullptr;
  }
  auto it = shared_->find(name);
  return it == shared_->end() ? nullptr : &it->second;
}

void NamespaceLabels::Set(const NamespaceSpec& ns) {
  Labels& labels = Writable()[ns.name];
  labels = ns.labels;
  labels[std::string(kNameLabel)] = ns.name;
}

void NamespaceLabels::Erase(std::string_view name) {
  Table& table = Writable();
  if (auto it = table.find(name); it != table.end()) {
    table.erase(it);
  }
}

std::shared_ptr<const NamespaceLabels::Table> NamespaceLabels::Share() {
  if (shared_ == nullptr) {
    Writable();
  }
  owned_.reset();  // shared_ still holds the table: the next write copies it
  return shared_;
}

NamespaceLabels::Table& NamespaceLabels::Writable() {
  if (owned_ == nullptr) {
    owned_ = shared_ == nullptr ? std::make_shared<Table>() : std::make_shared<Table>(*shared_);
    shared_ = owned_;
  }
  return *owned_;
}

}  // namespace engine
