// `tally sweep` building blocks (docs/sweep.md): --set parsing, field paths and their errors,
// overlays, YAML round trips through the manifest loader, variant enumeration, slices, and
// sweep.json.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "replay/io/input_limits.h"
#include "replay/io/manifest_loader.h"
#include "replay/io/manifest_overlay.h"
#include "replay/sweep/sweep_results.h"
#include "replay/sweep/sweep_variants.h"

namespace replay {
namespace {

constexpr const char* kManifests = R"(# comment
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata:
  name: default
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: team-a
spec:
  cohortName: all
  flavorFungibility:
    whenCanBorrow: MayStopSearch
  resourceGroups:
  - coveredResources: ["cpu", "nvidia.com/gpu"]
    flavors:
    - name: default
      resources:
      - name: cpu
        nominalQuota: 8
      - name: nvidia.com/gpu
        nominalQuota: "4"
        borrowingLimit: 2
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: team-b
spec:
  cohortName: all
  resourceGroups:
  - coveredResources: ["cpu"]
    flavors:
    - name: default
      resources:
      - name: cpu
        nominalQuota: 8
---
apiVersion: v1
kind: List
items:
- apiVersion: kueue.x-k8s.io/v1beta2
  kind: LocalQueue
  metadata:
    name: main
    namespace: ns-a
  spec:
    clusterQueue: team-a
- apiVersion: kueue.x-k8s.io/v1beta2
  kind: LocalQueue
  metadata:
    name: main
    namespace: ns-b
  spec:
    clusterQueue: team-b
)";

constexpr const char* kGpuPath = "spec.resourceGroups[0].flavors[0].resources[1].nominalQuota";

Manifests Base() {
  engine::StatusOr<Manifests> m = Manifests::Parse(kManifests, "m.yaml");
  EXPECT_TRUE(m.ok()) << m.status().message();
  return std::move(m).value();
}

std::string Get(const Manifests& m, std::string_view kind, std::string_view name,
                std::string_view path) {
  engine::StatusOr<std::string> v = m.GetText(kind, name, path);
  return v.ok() ? *v : "<" + v.status().message() + ">";
}

TEST(FieldPathTest, KeysIndicesAndQuotedKeys) {
  engine::StatusOr<std::vector<FieldPathStep>> p =
      ParseFieldPath(R"(spec.resourceGroups[0].flavors[12]["nvidia.com/gpu"].x)");
  ASSERT_TRUE(p.ok()) << p.status().message();
  ASSERT_EQ(p->size(), 7u);
  EXPECT_EQ((*p)[0].key, "spec");
  EXPECT_TRUE((*p)[2].is_index);
  EXPECT_EQ((*p)[2].index, 0u);
  EXPECT_EQ((*p)[4].index, 12u);
  EXPECT_EQ((*p)[5].key, "nvidia.com/gpu");
  EXPECT_EQ((*p)[6].key, "x");
  EXPECT_EQ((*p)[3].key, "flavors");
  EXPECT_FALSE(ParseFieldPath(R"(a["b.c"])")->at(1).is_index);
  EXPECT_EQ(ParseFieldPath(R"(a["b.c"])")->at(1).key, "b.c");
}

TEST(FieldPathTest, Errors) {
  for (const char* bad : {"", "a..b", "a.", ".a", "a[x]", "a[1", "a[-1]", "a[0]b", R"(a["b)"}) {
    EXPECT_FALSE(ParseFieldPath(bad).ok()) << bad;
  }
  EXPECT_EQ(ParseFieldPath("a[x]").status().message(),
            "field path \"a[x]\": [x] is not a list index (a number; write [\"x\"] for a key)");
}

TEST(SetFlagTest, Parses) {
  engine::StatusOr<SetFlag> f =
      ParseSetFlag(R"(ClusterQueue/team-a:spec.flavorFungibility.whenCanBorrow=Borrow,"a,b",'x')");
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_EQ(f->kind, "ClusterQueue");
  EXPECT_EQ(f->name, "team-a");
  EXPECT_EQ(f->path, "spec.flavorFungibility.whenCanBorrow");
  EXPECT_EQ(f->values, (std::vector<std::string>{"Borrow", R"("a,b")", "'x'"}));
  EXPECT_EQ(f->Assignment(0).Label(),
            "ClusterQueue/team-a:spec.flavorFungibility.whenCanBorrow=Borrow");
  engine::StatusOr<SetFlag> ns = ParseSetFlag("LocalQueue/ns-a/main:spec.clusterQueue=team-b");
  ASSERT_TRUE(ns.ok());
  EXPECT_EQ(ns->name, "ns-a/main");
}

TEST(SetFlagTest, Errors) {
  auto message = [](const char* spec) { return ParseSetFlag(spec).status().message(); };
  EXPECT_EQ(message("ClusterQueue/a"),
            "--set ClusterQueue/a: expected KIND/NAME:field.path=VALUE[,VALUE...]");
  EXPECT_EQ(message("ClusterQueue:spec.x=1"),
            "--set ClusterQueue:spec.x=1: expected KIND/NAME:field.path=VALUE[,VALUE...] "
            "(KIND/NAME like ClusterQueue/team-a, or LocalQueue/NAMESPACE/NAME)");
  EXPECT_EQ(message("ClusterQueue/a:spec.x"),
            "--set ClusterQueue/a:spec.x: expected KIND/NAME:field.path=VALUE[,VALUE...]");
  EXPECT_EQ(message("ClusterQueue/a:spec.x=1,,2"),
            "--set ClusterQueue/a:spec.x=1,,2: empty value (write null for a null, \"\" for an "
            "empty string)");
  EXPECT_EQ(message("ClusterQueue/a:spec.x=1,1"),
            "--set ClusterQueue/a:spec.x=1,1: value 1 given twice");
  EXPECT_EQ(message("ClusterQueue/a:metadata.name=b"),
            "--set ClusterQueue/a:metadata.name=b: metadata.name is part of the object's identity "
            "and cannot be set");
  EXPECT_FALSE(ParseSetFlag("ClusterQueue/a:spec.x={a: 1}").ok());
  EXPECT_FALSE(ParseSetFlag("ClusterQueue/a:spec..x=1").ok());
  // Found by test/fuzz/overlay_fuzz: a byte that is not UTF-8 in a label key was set, then
  // emitted as YAML that could not be read back.
  EXPECT_EQ(message("ClusterQueue/team-a:metadata.labels[\"example.co\x9a/tier\"]=gold"),
            "--set: not valid UTF-8");
  EXPECT_EQ(ParseSetFlag(std::string_view("ClusterQueue/team-a:metadata.name\0x=1", 37))
                .status()
                .message(),
            "--set: control character 0x00 not allowed");
  // A path deeper than the YAML depth limit would create YAML no command reads back.
  std::string deep = "ClusterQueue/team-a:spec";
  for (int i = 0; i < 300; ++i) {
    deep += ".a";
  }
  deep += "=1";
  EXPECT_NE(ParseSetFlag(deep).status().message().find(
                "the path has 301 steps: deeper than 256 levels (--max-yaml-depth)"),
            std::string::npos);
}

TEST(ManifestsTest, SetReplacesAndCreates) {
  Manifests m = Base();
  ASSERT_TRUE(
      m.Set(ParseSetFlag(std::string("ClusterQueue/team-a:") + kGpuPath + "=6")->Assignment(0))
          .ok());
  EXPECT_EQ(Get(m, "ClusterQueue", "team-a", kGpuPath), "6");
  // Missing map keys are created on the way.
  ASSERT_TRUE(m.Set(ParseSetFlag("ClusterQueue/team-b:spec.preemption.reclaimWithinCohort=Any")
                        ->Assignment(0))
                  .ok());
  EXPECT_EQ(Get(m, "ClusterQueue", "team-b", "spec.preemption.reclaimWithinCohort"), "Any");
  // A quoted value stays a string; null is null.
  ASSERT_TRUE(
      m.Set(ParseSetFlag(R"(ClusterQueue/team-a:spec.cohortName="5Gi")")->Assignment(0)).ok());
  EXPECT_EQ(Get(m, "ClusterQueue", "team-a", "spec.cohortName"), R"("5Gi")");
  ASSERT_TRUE(m.Set(ParseSetFlag("ClusterQueue/team-a:spec.resourceGroups[0].flavors[0]"
                                 ".resources[1].borrowingLimit=null")
                        ->Assignment(0))
                  .ok());
  EXPECT_EQ(Get(m, "ClusterQueue", "team-a",
                "spec.resourceGroups[0].flavors[0].resources[1].borrowingLimit"),
            "~");
  // Objects inside a List, by namespace/name.
  ASSERT_TRUE(
      m.Set(ParseSetFlag("LocalQueue/ns-b/main:spec.clusterQueue=team-a")->Assignment(0)).ok());
  EXPECT_EQ(Get(m, "LocalQueue", "ns-b/main", "spec.clusterQueue"), "team-a");
  EXPECT_EQ(Get(m, "LocalQueue", "ns-a/main", "spec.clusterQueue"), "team-a");
  // The base is untouched by edits of a clone.
  Manifests base = Base();
  Manifests copy = base.Clone();
  ASSERT_TRUE(copy.Set(ParseSetFlag("ClusterQueue/team-b:spec.cohortName=x")->Assignment(0)).ok());
  EXPECT_EQ(Get(base, "ClusterQueue", "team-b", "spec.cohortName"), "all");
  EXPECT_EQ(Get(copy, "ClusterQueue", "team-b", "spec.cohortName"), "x");
}

TEST(ManifestsTest, SetErrors) {
  Manifests m = Base();
  auto set = [&m](const std::string& spec) {
    engine::StatusOr<SetFlag> f = ParseSetFlag(spec);
    EXPECT_TRUE(f.ok()) << spec;
    return m.Set(f->Assignment(0)).message();
  };
  EXPECT_EQ(set("ClusterQueue/team-z:spec.x=1"),
            "no ClusterQueue named \"team-z\" in the manifests (ClusterQueues: team-a, team-b)");
  EXPECT_EQ(set("Cohort/all:spec.x=1"),
            "no Cohort named \"all\" in the manifests (there is no Cohort)");
  EXPECT_EQ(set("LocalQueue/main:spec.x=1"),
            "LocalQueue/main is ambiguous: LocalQueue/ns-a/main (m.yaml document 3 items[0]), "
            "LocalQueue/ns-b/main (m.yaml document 3 items[1]); write KIND/NAMESPACE/NAME");
  EXPECT_EQ(set("ClusterQueue/team-a:spec.resourceGroups[0].flavors[3].name=x"),
            "spec.resourceGroups[0].flavors[3]: no such element (spec.resourceGroups[0].flavors "
            "has 1 element)");
  EXPECT_EQ(set("ClusterQueue/team-a:spec.cohortName.x=1"),
            "spec.cohortName.x: spec.cohortName is a scalar, not a map");
  EXPECT_EQ(set("ClusterQueue/team-a:spec[0]=1"), "spec[0]: spec is a map, not a list");
}

// Issue 23, findings 13 and 13b (test/robustness/13-..., 13b-...): an overlay whose aliases
// loop or multiply is refused when parsed, before Emit, Clone or MergeInto follow the aliases
// (they recursed until SIGSEGV, or grew to gigabytes).
TEST(ManifestsTest, AliasLoopsAndAliasBombsAreRefusedWhenParsed) {
  engine::StatusOr<Manifests> loop = Manifests::Parse(
      "&a {kind: ClusterQueue, metadata: {name: team-a}, spec: {x: *a}}\n", "loop.yaml");
  ASSERT_FALSE(loop.ok());
  EXPECT_EQ(loop.status().message(),
            "loop.yaml:1: YAML nested deeper than 256 levels once aliases are followed (an alias "
            "inside its own anchor nests without end; --max-yaml-depth)");
  std::string bomb = "kind: ClusterQueue\nmetadata: {name: team-a}\na0: &a0 [x,x,x,x,x,x,x,x,x]\n";
  for (int i = 1; i <= 7; ++i) {
    bomb += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int k = 0; k < 9; ++k) {
      bomb += (k == 0 ? "*a" : ",*a") + std::to_string(i - 1);
    }
    bomb += "]\n";
  }
  bomb += "spec: {x: *a7}\n";  // 9^8 = 43 million scalars once expanded
  engine::StatusOr<Manifests> bombed = Manifests::Parse(bomb, "bomb.yaml");
  ASSERT_FALSE(bombed.ok());
  EXPECT_NE(bombed.status().message().find("YAML expands to more than 10000000 nodes"),
            std::string::npos)
      << bombed.status().message();
  // Aliases that neither loop nor multiply much are fine.
  engine::StatusOr<Manifests> shared = Manifests::Parse(
      "kind: ClusterQueue\nmetadata: {name: team-a}\nx: &q [1, 2]\nspec: {a: *q, b: *q}\n",
      "shared.yaml");
  EXPECT_TRUE(shared.ok()) << shared.status().message();
  // --max-yaml-nodes lowers (or raises) the expansion limit.
  InputLimits low;
  low.yaml_max_nodes = 10;
  SetInputLimits(low);
  engine::StatusOr<Manifests> over = Manifests::Parse(
      "kind: ClusterQueue\nmetadata: {name: team-a}\nx: &q [1, 2]\nspec: {a: *q, b: *q}\n",
      "shared.yaml");
  SetInputLimits(InputLimits{});
  ASSERT_FALSE(over.ok());
  EXPECT_NE(over.status().message().find("more than 10 nodes"), std::string::npos)
      << over.status().message();
}

TEST(ManifestsTest, OverlayDeepMerges) {
  Manifests m = Base();
  engine::StatusOr<Manifests> overlay = Manifests::Parse(R"(
kind: ClusterQueue
metadata:
  name: team-a
spec:
  flavorFungibility:
    whenCanPreempt: Preempt
  preemption:
    withinClusterQueue: LowerPriority
  resourceGroups:
  - coveredResources: ["cpu"]
    flavors:
    - name: default
      resources:
      - name: cpu
        nominalQuota: 2
---
kind: LocalQueue
metadata:
  name: main
  namespace: ns-b
spec:
  clusterQueue: team-a
)",
                                                         "o.yaml");
  ASSERT_TRUE(overlay.ok());
  ASSERT_TRUE(m.ApplyOverlay(*overlay).ok());
  // Maps merge: the old key stays, the new one is added.
  EXPECT_EQ(Get(m, "ClusterQueue", "team-a", "spec.flavorFungibility.whenCanBorrow"),
            "MayStopSearch");
  EXPECT_EQ(Get(m, "ClusterQueue", "team-a", "spec.flavorFungibility.whenCanPreempt"), "Preempt");
  EXPECT_EQ(Get(m, "ClusterQueue", "team-a", "spec.preemption.withinClusterQueue"),
            "LowerPriority");
  EXPECT_EQ(Get(m, "ClusterQueue", "team-a", "spec.cohortName"), "all");
  // Lists are replaced whole.
  EXPECT_EQ(Get(m, "ClusterQueue", "team-a", "spec.resourceGroups[0].coveredResources"),
            "- \"cpu\"");
  EXPECT_EQ(Get(m, "ClusterQueue", "team-a", "spec.resourceGroups[0].flavors[0].resources[1]"),
            "<spec.resourceGroups[0].flavors[0].resources[1]: no such field>");
  EXPECT_EQ(Get(m, "LocalQueue", "ns-b/main", "spec.clusterQueue"), "team-a");

  engine::StatusOr<Manifests> unknown =
      Manifests::Parse("kind: ClusterQueue\nmetadata:\n  name: nope\nspec:\n  x: 1\n", "u.yaml");
  EXPECT_EQ(m.ApplyOverlay(*unknown).message(),
            "u.yaml:1: no ClusterQueue named \"nope\" in the manifests (ClusterQueues: team-a, "
            "team-b) (an overlay edits objects, it does not add them)");
  engine::StatusOr<Manifests> anonymous = Manifests::Parse("kind: ClusterQueue\n", "n.yaml");
  EXPECT_FALSE(m.ApplyOverlay(*anonymous).ok());
}

// What the sweep writes must load as what was read: quoted scalars stay strings, plain ones
// numbers and booleans.
TEST(ManifestsTest, EmitRoundTripsThroughTheLoader) {
  Manifests m = Base();
  const std::string text = m.Emit();
  EXPECT_NE(text.find("nominalQuota: \"4\""), std::string::npos) << text;
  EXPECT_NE(text.find("nominalQuota: 8"), std::string::npos) << text;
  LoadResult original = LoadManifestString(kManifests, "m.yaml");
  LoadResult emitted = LoadManifestString(text, "e.yaml");
  EXPECT_EQ(original.errors.size(), emitted.errors.size());
  EXPECT_EQ(original.loaded_by_kind, emitted.loaded_by_kind);
  engine::StatusOr<Manifests> again = Manifests::Parse(text, "e.yaml");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->Emit(), text);

  // A --set value that is invalid for Kueue is reported by the loader against the written file.
  ASSERT_TRUE(
      m.Set(ParseSetFlag(std::string("ClusterQueue/team-a:") + kGpuPath + "=-3")->Assignment(0))
          .ok());
  LoadResult bad = LoadManifestString(m.Emit(), "variants/set-0001/manifests.yaml");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.errors[0].ToString().find("variants/set-0001/manifests.yaml:"), std::string::npos)
      << bad.errors[0].ToString();
  EXPECT_NE(bad.errors[0].ToString().find(kGpuPath), std::string::npos) << bad.errors[0].ToString();
}

TEST(ManifestsTest, SyntaxErrorNamesFileAndLine) {
  engine::StatusOr<Manifests> m = Manifests::Parse("a: 1\nb: [\n", "bad.yaml");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().message().rfind("bad.yaml:", 0), 0u) << m.status().message();
}

TEST(VariantsTest, OrderAndIds) {
  std::vector<SetFlag> sets = {*ParseSetFlag("ClusterQueue/team-a:spec.x=1,2,3"),
                               *ParseSetFlag("ClusterQueue/team-b:spec.y=a,b")};
  engine::StatusOr<std::vector<SweepVariant>> v =
      EnumerateVariants({"overlays/more gpus.yaml", "x/fast.yml"}, sets);
  ASSERT_TRUE(v.ok()) << v.status().message();
  std::vector<std::string> ids;
  for (const SweepVariant& s : *v) {
    ids.push_back(s.id);
    EXPECT_EQ(s.index, static_cast<int>(ids.size()) - 1);
  }
  EXPECT_EQ(ids, (std::vector<std::string>{"base", "more-gpus", "fast", "set-0001", "set-0002",
                                           "set-0003", "set-0004", "set-0005", "set-0006"}));
  EXPECT_EQ((*v)[1].overlay, "overlays/more gpus.yaml");
  // The first flag varies slowest.
  EXPECT_EQ((*v)[3].label, "ClusterQueue/team-a:spec.x=1, ClusterQueue/team-b:spec.y=a");
  EXPECT_EQ((*v)[4].label, "ClusterQueue/team-a:spec.x=1, ClusterQueue/team-b:spec.y=b");
  EXPECT_EQ((*v)[5].label, "ClusterQueue/team-a:spec.x=2, ClusterQueue/team-b:spec.y=a");
  EXPECT_EQ((*v)[8].label, "ClusterQueue/team-a:spec.x=3, ClusterQueue/team-b:spec.y=b");

  EXPECT_FALSE(EnumerateVariants({"a/x.yaml", "b/x.yaml"}, {}).ok());
  EXPECT_FALSE(EnumerateVariants({"base.yaml"}, {}).ok());
  EXPECT_FALSE(EnumerateVariants({"set-0001.yaml"}, {}).ok());
  EXPECT_EQ(EnumerateVariants({}, {})->size(), 1u);
}

TEST(VariantsTest, BuildVariantManifests) {
  Manifests base = Base();
  std::vector<SetFlag> sets = {
      *ParseSetFlag(std::string("ClusterQueue/team-a:") + kGpuPath + "=1,2")};
  std::vector<SweepVariant> v = *EnumerateVariants({}, sets);
  engine::StatusOr<Manifests> second = BuildVariantManifests(base, v[2], nullptr);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(Get(*second, "ClusterQueue", "team-a", kGpuPath), "2");
  EXPECT_EQ(Get(base, "ClusterQueue", "team-a", kGpuPath), "\"4\"");
  std::vector<SweepVariant> wrong =
      *EnumerateVariants({}, {*ParseSetFlag("ClusterQueue/team-a:spec.resourceGroups[4].x=1")});
  EXPECT_EQ(BuildVariantManifests(base, wrong[1], nullptr).status().message(),
            "--set ClusterQueue/team-a:spec.resourceGroups[4].x=1: spec.resourceGroups[4]: no "
            "such element (spec.resourceGroups has 1 element)");
}

TEST(ShardTest, ParseAndRuns) {
  engine::StatusOr<ShardSpec> s = ParseShard("1/3");
  ASSERT_TRUE(s.ok());
  EXPECT_FALSE(s->Runs(0));
  EXPECT_TRUE(s->Runs(1));
  EXPECT_TRUE(s->Runs(4));
  EXPECT_EQ(s->ToString(), "1/3");
  for (const char* bad : {"3/3", "-1/3", "1/0", "1", "a/b", "1/3x", "/3", "1/"}) {
    EXPECT_FALSE(ParseShard(bad).ok()) << bad;
  }
  // Every variant in exactly one slice.
  for (int n = 1; n <= 5; ++n) {
    for (int variant = 0; variant < 12; ++variant) {
      int owners = 0;
      for (int i = 0; i < n; ++i) {
        owners += ParseShard(std::to_string(i) + "/" + std::to_string(n))->Runs(variant) ? 1 : 0;
      }
      EXPECT_EQ(owners, 1);
    }
  }
}

TEST(SweepRecordTest, JsonRoundTrip) {
  SweepRecord r;
  r.fingerprint = "0123456789abcdef";
  r.part_fingerprints = {{"events", "1"}, {"sets", "2"}};
  r.shard = ShardSpec{2, 4};
  r.events = "e.jsonl.gz";
  r.manifests = {"m.yaml"};
  r.sets = {"ClusterQueue/a:spec.x=1,2"};
  r.settings = {{"control-plane", "false"}};
  SweepVariantRecord a;
  a.id = "base";
  a.label = "manifests as given";
  a.status = VariantStatus::kOtherShard;
  SweepVariantRecord b;
  b.index = 1;
  b.id = "set-0001";
  b.label = "ClusterQueue/a:spec.x=1";
  b.sets = {"ClusterQueue/a:spec.x=1"};
  b.status = VariantStatus::kFailed;
  b.exit_code = 1;
  r.variants = {a, b};
  const std::string json = FormatSweepJson(r);
  engine::StatusOr<SweepRecord> back = ParseSweepJson(json, "sweep.json");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(FormatSweepJson(*back), json);
  EXPECT_EQ(back->variants[1].status, VariantStatus::kFailed);
  EXPECT_EQ(back->variants[1].exit_code, 1);
  EXPECT_EQ(back->shard.ToString(), "2/4");
  EXPECT_EQ(ParseSweepJson(R"({"schemaVersion":2})", "s.json").status().message(),
            "s.json: schemaVersion 2: this tally reads version 1 (docs/sweep.md)");
}

TEST(FingerprintTest, FieldsAreDelimited) {
  Fingerprint a;
  a.Field("ab");
  a.Field("c");
  Fingerprint b;
  b.Field("a");
  b.Field("bc");
  EXPECT_NE(a.Hex(), b.Hex());
  EXPECT_EQ(a.Hex().size(), 16u);
  Fingerprint empty;
  EXPECT_EQ(empty.Hex(), "cbf29ce484222325");  // the FNV-1a offset basis
}

}  // namespace
}  // namespace replay
