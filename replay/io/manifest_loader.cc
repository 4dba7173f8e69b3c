#include "replay/io/manifest_loader.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <set>
#include <sstream>
#include <system_error>
#include <tuple>
#include <utility>
#include <vector>

#include "engine/config_validation.h"
#include "replay/io/closest_match.h"
#include "replay/io/device_fields.h"
#include "replay/io/flavor_supply_fields.h"
#include "replay/io/input_limits.h"
#include "replay/io/manifest_context.h"
#include "replay/io/manifest_fields.h"
#include "replay/io/workload_fields.h"
#include "replay/io/yaml_documents.h"
#include "replay/io/yaml_expansion.h"

#include <yaml-cpp/yaml.h>

namespace replay {
namespace {

using internal::Get;
using internal::LineOf;
using internal::ObjectContext;

constexpr std::string_view kKueueGroup = "kueue.x-k8s.io";
constexpr std::string_view kConfigGroup = "config.kueue.x-k8s.io";
// tally's own replay-model kinds (not Kueue objects).
constexpr std::string_view kReplayGroup = "replay.tally.dev";
constexpr std::string_view kTemplateHint =
    " (the line contains '{{': a Go or Helm template must be rendered before loading)";

using KindParser = bool (*)(const YAML::Node&, ObjectContext&, engine::ClusterSpec&);

struct KindInfo {
  std::string_view kind;
  KindParser parser;
  bool v1alpha1;  // also served as kueue.x-k8s.io/v1alpha1
};

constexpr KindInfo kKueueKinds[] = {
    {"ResourceFlavor", &internal::ParseResourceFlavor, false},
    {"Cohort", &internal::ParseCohort, true},
    {"ClusterQueue", &internal::ParseClusterQueue, false},
    {"LocalQueue", &internal::ParseLocalQueue, false},
    {"WorkloadPriorityClass", &internal::ParsePriorityClass, false},
    {"Workload", &internal::ParseWorkload, false},
    {"AdmissionCheck", &internal::ParseAdmissionCheck, false},
};

// "kueue.x-k8s.io/v1beta2" -> {"kueue.x-k8s.io", "v1beta2"}; "v1" -> {"", "v1"}.
std::pair<std::string_view, std::string_view> SplitApiVersion(std::string_view api_version) {
  size_t slash = api_version.find('/');
  if (slash == std::string_view::npos) {
    return {"", api_version};
  }
  return {api_version.substr(0, slash), api_version.substr(slash + 1)};
}

// The 1-based line `line` of `text`, or "" when out of range.
std::string_view LineText(std::string_view text, int line) {
  size_t start = 0;
  for (int i = 1; i < line; ++i) {
    start = text.find('\n', start);
    if (start == std::string_view::npos) {
      return "";
    }
    ++start;
  }
  size_t end = text.find('\n', start);
  return text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
}

class Loader {
 public:
  explicit Loader(LoadResult& result) : result_(result) {}

  void LoadFile(const std::string& path) {
    if (path == kStdinPath) {  // `-`: the manifests come on standard input
      std::ostringstream buffer;
      buffer << std::cin.rdbuf();
      LoadText(buffer.str(), std::string(kStdinName));
      return;
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      const std::error_code ec(errno, std::generic_category());
      AddFileError(path, 0, fmt::format("cannot read file: {}", ec.message()));
      return;
    }
    std::ostringstream buffer;
    buffer << in.rdbuf();
    LoadText(buffer.str(), path);
  }

  void LoadText(std::string_view text, const std::string& file) {
    ++result_.files_read;
    file_order_.emplace(file, file_order_.size());
    const size_t first_error = result_.errors.size();
    // An alias is a second reference to its anchored node: a List of 100,000 aliases of one
    // Workload is 100,000 Workloads to parse (a 570 KB file took 4.6 GB and over 2 minutes).
    // Documents are walked with their aliases followed, within --max-yaml-nodes and
    // --max-yaml-depth, when the text can hold an alias at all (it needs a '*').
    const bool may_have_aliases = text.find('*') != std::string_view::npos;
    // The documents are loaded as they are parsed, a few at a time (replay/io/yaml_documents.h):
    // a file found not to be YAML further on takes back what its first documents loaded, so that
    // it loads nothing, as when it was parsed whole first.
    const LoadMark mark = Mark();
    try {
      ChunkLoads loads(*this, file, may_have_aliases);
      ForEachYamlChunk(std::string(text), loads);
    } catch (const YAML::Exception& e) {
      Restore(mark);
      const int line = e.mark.line >= 0 ? e.mark.line + 1 : 0;
      AddFileError(file, line, fmt::format("not valid YAML: {}", e.msg));
      AddTemplateHints(text, first_error);
      return;
    }
    AddTemplateHints(text, first_error);
  }

  // What a file's documents change in the result, to take it back (LoadText).
  struct LoadMark {
    std::array<size_t, 11> lists{};
    engine::ConfigurationSpec configuration;
    size_t errors = 0;
    size_t warnings = 0;
    int documents_read = 0;
    int empty_documents = 0;
    int skipped_unknown = 0;
    std::map<std::string, int> loaded_by_kind;
    std::map<std::string, int> skipped_by_kind;
  };

  // The spec's object lists, in the order of LoadMark::lists.
  static constexpr auto kLists =
      std::make_tuple(&engine::ClusterSpec::flavors, &engine::ClusterSpec::cohorts,
                      &engine::ClusterSpec::cluster_queues, &engine::ClusterSpec::local_queues,
                      &engine::ClusterSpec::priority_classes, &engine::ClusterSpec::workloads,
                      &engine::ClusterSpec::namespaces, &engine::ClusterSpec::admission_checks,
                      &engine::ClusterSpec::flavor_supplies, &engine::ClusterSpec::resource_classes,
                      &engine::ClusterSpec::nodes);
  static_assert(
      std::tuple_size_v<decltype(kLists)> == std::tuple_size_v<decltype(LoadMark::lists)>);

  template <typename F>
  void ForEachList(F&& f) {
    std::apply(
        [&](auto... list) {
          size_t i = 0;
          (f(i++, result_.spec.*list), ...);
        },
        kLists);
  }

  LoadMark Mark() {
    LoadMark m;
    ForEachList([&m](size_t i, const auto& list) { m.lists[i] = list.size(); });
    m.configuration = result_.spec.configuration;
    m.errors = result_.errors.size();
    m.warnings = result_.warnings.size();
    m.documents_read = result_.documents_read;
    m.empty_documents = result_.empty_documents;
    m.skipped_unknown = result_.skipped_unknown;
    m.loaded_by_kind = result_.loaded_by_kind;
    m.skipped_by_kind = result_.skipped_by_kind;
    return m;
  }

  // The field lines recorded for the objects taken back stay: they are only looked up for
  // objects that exist.
  void Restore(const LoadMark& m) {
    ForEachList([&m](size_t i, auto& list) {
      list.erase(list.begin() + static_cast<std::ptrdiff_t>(m.lists[i]), list.end());
    });
    result_.spec.configuration = m.configuration;
    result_.errors.resize(m.errors);
    result_.warnings.resize(m.warnings);
    result_.documents_read = m.documents_read;
    result_.empty_documents = m.empty_documents;
    result_.skipped_unknown = m.skipped_unknown;
    result_.loaded_by_kind = m.loaded_by_kind;
    result_.skipped_by_kind = m.skipped_by_kind;
  }

  // Validates everything loaded and orders the messages by file, document and line.
  //
  // A validation issue at or under a field that already has a load error (a list that was a
  // map, say) is a consequence of that error and is dropped.
  void Finish() {
    std::set<std::string> load_error_paths;
    for (const LoadError& e : result_.errors) {
      load_error_paths.insert(ErrorKey(e.file, e.document, e.kind, e.name, e.field_path));
    }
    internal::CheckWorkloadObjects(result_.spec, lines_, result_.errors, result_.warnings);
    for (engine::ValidationIssue& issue : engine::ValidateClusterSpec(
             result_.spec, {.max_cohort_depth = CurrentInputLimits().max_cohort_depth})) {
      if (UnderLoadError(load_error_paths, issue)) {
        continue;
      }
      LoadError e{issue.source.file,
                  issue.source.document,
                  lines_.Find(issue.source, issue.field_path),
                  std::move(issue.kind),
                  std::move(issue.name),
                  std::move(issue.field_path),
                  std::move(issue.message)};
      (issue.is_warning ? result_.warnings : result_.errors).push_back(std::move(e));
    }
    SortByPosition(result_.errors);
    SortByPosition(result_.warnings);
  }

  static std::string ErrorKey(std::string_view file, int document, std::string_view kind,
                              std::string_view name, std::string_view path) {
    return fmt::format("{}\x1f{}\x1f{}\x1f{}\x1f{}", file, document, kind, name, path);
  }

  static bool UnderLoadError(const std::set<std::string>& load_error_paths,
                             const engine::ValidationIssue& issue) {
    std::string path = issue.field_path;
    while (!path.empty()) {
      if (load_error_paths.count(
              ErrorKey(issue.source.file, issue.source.document, issue.kind, issue.name, path))
          != 0) {
        return true;
      }
      const size_t cut = path.find_last_of(".[");
      path.resize(cut == std::string::npos ? 0 : cut);
    }
    return false;
  }

  void AddFileError(const std::string& file, int line, std::string message) {
    result_.errors.push_back(LoadError{file, -1, line, "", "", "", std::move(message)});
  }

 private:
  // A document of a file, its aliases checked first when it may have some (LoadText).
  void VisitDocument(const YAML::Node& doc, const std::string& file, int index,
                     bool may_have_aliases) {
    if (may_have_aliases) {
      if (std::optional<YamlExpansionIssue> issue = FindYamlExpansionIssue(doc)) {
        AddFileError(file, issue->line, std::move(issue->message));
        ++result_.documents_read;
        return;
      }
    }
    LoadDocument(doc, file, index);
  }

  void LoadDocument(const YAML::Node& doc, const std::string& file, int index) {
    ++result_.documents_read;
    if (!doc.IsDefined() || doc.IsNull()) {
      ++result_.empty_documents;
      return;
    }
    if (!doc.IsMap()) {
      result_.errors.push_back(LoadError{
          file, index, LineOf(doc), "", "", "",
          fmt::format("expected a Kubernetes object (a map with apiVersion and kind), found {}",
                      internal::ShapeName(doc))});
      return;
    }
    LoadObject(doc, file, index, "", "", "");
  }

  // `item_path` is "items[3]" for an object inside a List; typed lists (`ClusterQueueList`) may
  // leave apiVersion and kind out of their items, which then default to the list's.
  // `in_list`: `obj` is an item of a List, where another List is not loaded.
  void LoadObject(const YAML::Node& obj, const std::string& file, int document,
                  const std::string& item_path, const std::string& default_api_version,
                  const std::string& default_kind, bool in_list = false) {
    const int line = LineOf(obj);
    std::string api_version = ScalarOr(Get(obj, "apiVersion"), default_api_version);
    std::string kind = ScalarOr(Get(obj, "kind"), default_kind);
    if (api_version.empty() && kind == "ResourceClass") {
      // Seed 001's examples give no apiVersion: they load as written.
      api_version = fmt::format("{}/v1alpha1", kReplayGroup);
    }
    if (api_version.empty() || kind.empty()) {
      result_.errors.push_back(LoadError{
          file, document, line, "", "", item_path,
          fmt::format("not a Kubernetes object: {} (a configuration file of another tool, or "
                      "a fragment?)",
                      api_version.empty() && kind.empty() ? "no apiVersion and no kind"
                      : api_version.empty()               ? "no apiVersion"
                                                          : "no kind")});
      return;
    }
    YAML::Node items = Get(obj, "items");
    if (kind == "List" || (kind.ends_with("List") && items.IsDefined())) {
      if (in_list) {
        // Kubernetes lists hold objects, not lists. Refusing nested lists also bounds the work
        // on hostile YAML: a List that contains itself through an alias (&a {kind: List,
        // items: [*a]}) would recurse forever, and lists nested through aliases multiply.
        result_.errors.push_back(LoadError{
            file, document, line, kind, "", item_path,
            fmt::format("a {} inside a List is not loaded (a list holds objects; a list that "
                        "contains itself through a YAML alias is refused too)",
                        kind)});
        return;
      }
      LoadList(obj, items, file, document, item_path, api_version, kind);
      return;
    }
    auto [group, version] = SplitApiVersion(api_version);
    engine::SourceRef source{file, document, line};
    internal::LoadSink sink{&result_.errors, &result_.warnings, &lines_};
    if (group == kKueueGroup) {
      for (const KindInfo& info : kKueueKinds) {
        if (info.kind != kind) {
          continue;
        }
        if (version != "v1beta1" && version != "v1beta2"
            && !(info.v1alpha1 && version == "v1alpha1")) {
          result_.errors.push_back(LoadError{
              file, document, line, kind, "", "apiVersion",
              fmt::format("unsupported apiVersion \"{}\" for {} (want {}/v1beta1 or v1beta2{})",
                          api_version, kind, kKueueGroup, info.v1alpha1 ? " or v1alpha1" : "")});
          return;
        }
        ObjectContext ctx(sink, source, api_version, kind);
        Parse(info.parser, obj, ctx);
        return;
      }
    } else if (group.empty() && kind == "Namespace") {
      if (version != "v1") {
        result_.errors.push_back(LoadError{
            file, document, line, kind, "", "apiVersion",
            fmt::format("unsupported apiVersion \"{}\" for Namespace (want v1)", api_version)});
        return;
      }
      ObjectContext ctx(sink, source, api_version, kind);
      Parse(&internal::ParseNamespace, obj, ctx);
      return;
    } else if (group.empty() && kind == "Node") {
      if (version != "v1") {
        result_.errors.push_back(LoadError{
            file, document, line, kind, "", "apiVersion",
            fmt::format("unsupported apiVersion \"{}\" for Node (want v1)", api_version)});
        return;
      }
      ObjectContext ctx(sink, source, api_version, kind);
      Parse(&internal::ParseNode, obj, ctx);
      return;
    } else if (group == kReplayGroup && kind == "ResourceClass") {
      if (version != "v1alpha1") {
        result_.errors.push_back(LoadError{
            file, document, line, kind, "", "apiVersion",
            fmt::format("unsupported apiVersion \"{}\" for ResourceClass (want {}/v1alpha1, or "
                        "none as in the seed)",
                        api_version, kReplayGroup)});
        return;
      }
      ObjectContext ctx(sink, source, api_version, kind);
      Parse(&internal::ParseResourceClass, obj, ctx);
      return;
    } else if (group == kReplayGroup && kind == "FlavorSupply") {
      if (version != "v1alpha1") {
        result_.errors.push_back(LoadError{
            file, document, line, kind, "", "apiVersion",
            fmt::format("unsupported apiVersion \"{}\" for FlavorSupply (want {}/v1alpha1)",
                        api_version, kReplayGroup)});
        return;
      }
      ObjectContext ctx(sink, source, api_version, kind);
      Parse(&internal::ParseFlavorSupply, obj, ctx);
      return;
    } else if (group == kConfigGroup && kind == "Configuration") {
      if (version != "v1beta1" && version != "v1beta2") {
        result_.errors.push_back(LoadError{
            file, document, line, kind, "", "apiVersion",
            fmt::format("unsupported apiVersion \"{}\" for Configuration (want {}/v1beta1 or "
                        "v1beta2)",
                        api_version, kConfigGroup)});
        return;
      }
      if (configurations_ != nullptr) {
        configurations_->push_back({obj, file, document, line, api_version, kind});
        return;
      }
      LoadConfiguration(obj, file, document, line, api_version, kind);
      return;
    }
    ++result_.skipped_unknown;
    ++result_.skipped_by_kind[group.empty() ? kind : fmt::format("{}.{}", kind, group)];
    // A kind of Kueue's group (or tally's) that is one typo away from one tally reads: most
    // likely meant as that one, and skipping it silently would change the cluster.
    if (group == kKueueGroup || group == kReplayGroup) {
      std::vector<std::string> known;
      for (const KindInfo& info : kKueueKinds) {
        known.emplace_back(info.kind);
      }
      known.emplace_back("FlavorSupply");
      if (std::optional<std::string> m = ClosestMatch(kind, known)) {
        result_.warnings.push_back(LoadError{
            file, document, line, kind, "", "kind",
            fmt::format("not a kind of {} tally reads (skipped); did you mean {}?", group, *m)});
      }
    }
  }

  // Only one Configuration may be loaded, from any file: whether this one is the first depends
  // on every object before it, so it is loaded in order, on the thread that takes the chunks.
  void LoadConfiguration(const YAML::Node& obj, const std::string& file, int document, int line,
                         const std::string& api_version, const std::string& kind) {
    if (result_.spec.configuration.present) {
      result_.errors.push_back(LoadError{
          file, document, line, kind, "", "",
          fmt::format("Duplicate value: only one Configuration is allowed; one is already "
                      "defined at {}",
                      engine::ToString(result_.spec.configuration.source))});
      return;
    }
    internal::LoadSink sink{&result_.errors, &result_.warnings, &lines_};
    ObjectContext ctx(sink, engine::SourceRef{file, document, line}, api_version, kind);
    Parse(&internal::ParseConfiguration, obj, ctx);
  }

  void LoadList(const YAML::Node& list, const YAML::Node& items, const std::string& file,
                int document, const std::string& path, const std::string& api_version,
                const std::string& kind) {
    const std::string items_path = internal::Child(path, "items");
    if (!internal::Present(items)) {
      return;  // an empty list
    }
    if (!items.IsSequence()) {
      result_.errors.push_back(
          LoadError{file, document, LineOf(items), kind, "", items_path,
                    fmt::format("expected a list, found {}", internal::ShapeName(items))});
      return;
    }
    if (const size_t limit = CurrentInputLimits().max_objects_per_document; items.size() > limit) {
      result_.errors.push_back(
          LoadError{file, document, LineOf(items), kind, "", items_path,
                    fmt::format("Too many: {}: a document may hold at most {} objects, none loaded "
                                "(--max-objects-per-document)",
                                items.size(), limit)});
      return;
    }
    // A typed list's items inherit its apiVersion and element kind; a plain List's do not.
    const bool typed = kind != "List";
    const std::string item_api_version = typed ? api_version : "";
    const std::string item_kind = typed ? kind.substr(0, kind.size() - 4) : "";
    for (size_t i = 0; i < items.size(); ++i) {
      const YAML::Node item = items[i];
      const std::string item_path = internal::Index(items_path, i);
      if (!item.IsDefined() || !item.IsMap()) {
        result_.errors.push_back(LoadError{
            file, document, item.IsDefined() ? LineOf(item) : LineOf(list), "", "", item_path,
            fmt::format("expected a Kubernetes object, found {}", internal::ShapeName(item))});
        continue;
      }
      LoadObject(item, file, document, item_path, item_api_version, item_kind, /*in_list=*/true);
    }
  }

  // Runs one kind parser; nothing it does may throw out of the loader.
  void Parse(KindParser parser, const YAML::Node& obj, ObjectContext& ctx) {
    try {
      if (parser(obj, ctx, result_.spec)) {
        ++result_.loaded_by_kind[ctx.kind()];
      }
    } catch (const YAML::Exception& e) {
      ctx.Error(obj, "", fmt::format("internal error while reading the object: {}", e.what()));
    } catch (const std::exception& e) {
      ctx.Error(obj, "", fmt::format("internal error while reading the object: {}", e.what()));
    }
  }

  static std::string ScalarOr(const YAML::Node& node, const std::string& fallback) {
    if (node.IsDefined() && node.IsScalar()) {
      return node.Scalar();
    }
    return fallback;
  }

  // Errors on a line holding "{{" almost always come from an unrendered template.
  void AddTemplateHints(std::string_view text, size_t first_error) {
    for (size_t i = first_error; i < result_.errors.size(); ++i) {
      LoadError& e = result_.errors[i];
      if (e.line > 0 && LineText(text, e.line).find("{{") != std::string_view::npos) {
        e.message += kTemplateHint;
      }
    }
  }

  void SortByPosition(std::vector<LoadError>& errors) const {
    auto order = [this](const LoadError& e) {
      auto it = file_order_.find(e.file);
      const size_t file = it == file_order_.end() ? file_order_.size() : it->second;
      return std::make_tuple(file, e.document, e.line);
    };
    std::stable_sort(
        errors.begin(), errors.end(),
        [&order](const LoadError& a, const LoadError& b) { return order(a) < order(b); });
  }

  // A Configuration met while loading a chunk apart, loaded when the chunk is taken.
  struct DeferredConfiguration {
    YAML::Node object;
    std::string file;
    int document = 0;
    int line = 0;
    std::string api_version;
    std::string kind;
  };

  // What one chunk of a file loaded, apart from the result (LoadText).
  struct Part {
    LoadResult result;
    internal::FieldLines lines;
    std::vector<DeferredConfiguration> configurations;
  };

  // A file's chunks loaded on the threads that parsed them, each into a Part of its own, and
  // added to the result in order. The objects, errors, warnings, counts and field lines are the
  // same as loading the documents one after another: every parser only appends to the spec, and
  // a Configuration, which depends on the objects before it, waits for its chunk's turn. The
  // messages are put in file, document and line order by Finish.
  class ChunkLoads final : public YamlChunkVisitor {
   public:
    ChunkLoads(Loader& loader, const std::string& file, bool may_have_aliases)
        : loader_(loader), file_(file), may_have_aliases_(may_have_aliases) {}

    void Begin(size_t chunks) override { parts_.resize(chunks); }
    void Convert(size_t chunk, std::vector<YAML::Node>& documents, size_t first_index) override {
      Part& part = parts_[chunk];
      Loader apart(part.result);
      apart.configurations_ = &part.configurations;
      for (size_t i = 0; i < documents.size(); ++i) {
        apart.VisitDocument(documents[i], file_, static_cast<int>(first_index + i),
                            may_have_aliases_);
      }
      part.lines = std::move(apart.lines_);
    }
    void Take(size_t chunk) override {
      loader_.Absorb(parts_[chunk]);
      parts_[chunk] = Part{};
    }

   private:
    Loader& loader_;
    const std::string& file_;
    const bool may_have_aliases_;
    std::vector<Part> parts_;
  };

  void Absorb(Part& part) {
    LoadResult& from = part.result;
    std::apply([&](auto... list) { (AppendMoved(result_.spec.*list, from.spec.*list), ...); },
               kLists);
    AppendMoved(result_.errors, from.errors);
    AppendMoved(result_.warnings, from.warnings);
    result_.documents_read += from.documents_read;
    result_.empty_documents += from.empty_documents;
    result_.skipped_unknown += from.skipped_unknown;
    for (const auto& [kind, n] : from.loaded_by_kind) {
      result_.loaded_by_kind[kind] += n;
    }
    for (const auto& [kind, n] : from.skipped_by_kind) {
      result_.skipped_by_kind[kind] += n;
    }
    lines_.Merge(std::move(part.lines));
    for (const DeferredConfiguration& c : part.configurations) {
      LoadConfiguration(c.object, c.file, c.document, c.line, c.api_version, c.kind);
    }
  }

  template <typename T>
  static void AppendMoved(std::vector<T>& to, std::vector<T>& from) {
    if (to.empty()) {
      to = std::move(from);
      return;
    }
    to.insert(to.end(), std::make_move_iterator(from.begin()), std::make_move_iterator(from.end()));
  }

  LoadResult& result_;
  internal::FieldLines lines_;
  std::map<std::string, size_t> file_order_;
  // Set while loading a chunk apart (ChunkLoads): Configurations go here instead.
  std::vector<DeferredConfiguration>* configurations_ = nullptr;
};

}  // namespace

std::vector<std::string> ExpandManifestPaths(const std::vector<std::string>& paths,
                                             std::vector<UnlistedDirectory>& unlisted) {
  std::vector<std::string> files;
  for (const std::string& path : paths) {
    std::error_code ec;
    if (!std::filesystem::is_directory(path, ec)) {
      files.push_back(path);
      continue;
    }
    std::vector<std::string> found;
    for (auto it = std::filesystem::recursive_directory_iterator(path, ec);
         !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
      const std::filesystem::path& p = it->path();
      // kubectl get -o json writes one object or a List per file: JSON is YAML's flow style.
      if (it->is_regular_file(ec)
          && (p.extension() == ".yaml" || p.extension() == ".yml" || p.extension() == ".json")) {
        found.push_back(p.string());
      }
    }
    if (ec) {
      unlisted.push_back({path, "cannot list directory: " + ec.message()});
    } else if (found.empty()) {
      // Nothing loaded from a directory is a mistake to say, not an empty cluster to accept.
      unlisted.push_back({path, "holds no .yaml, .yml or .json file"});
    }
    std::sort(found.begin(), found.end());
    files.insert(files.end(), found.begin(), found.end());
  }
  return files;
}

std::string LoadError::ToString() const {
  std::string out = file.empty() ? "<input>" : file;
  if (line > 0) {
    out += fmt::format(":{}", line);
  }
  out += ":";
  if (document >= 0) {
    out += fmt::format(" document {}", document);
  }
  if (!kind.empty()) {
    out += " " + kind;
    if (!name.empty()) {
      out += "/" + name;
    }
  }
  if (document >= 0 || !kind.empty()) {
    out += ":";
  }
  if (!field_path.empty()) {
    out += " " + field_path + ":";
  }
  out += " " + message;
  return out;
}

LoadResult LoadManifestFiles(const std::vector<std::string>& paths) {
  LoadResult result;
  Loader loader(result);
  std::vector<UnlistedDirectory> unlisted;
  std::vector<std::string> files = ExpandManifestPaths(paths, unlisted);
  for (const UnlistedDirectory& u : unlisted) {
    loader.AddFileError(u.path, 0, u.reason);
  }
  for (const std::string& file : files) {
    loader.LoadFile(file);
  }
  loader.Finish();
  return result;
}

LoadResult LoadManifestString(std::string_view yaml, std::string_view file_name) {
  LoadResult result;
  Loader loader(result);
  loader.LoadText(yaml, std::string(file_name));
  loader.Finish();
  return result;
}

}  // namespace replay
