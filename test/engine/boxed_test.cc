// engine::Boxed (engine/base/boxed.h): std::optional's behaviour with the value on the heap.
#include "engine/base/boxed.h"

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include <gtest/gtest.h>

namespace engine {
namespace {

TEST(BoxedTest, IsOnePointerAndEmptyByDefault) {
  EXPECT_EQ(sizeof(Boxed<std::string>), sizeof(void*));
  const Boxed<std::string> empty;
  EXPECT_FALSE(empty.has_value());
  EXPECT_FALSE(static_cast<bool>(empty));
  EXPECT_EQ(empty, std::nullopt);
  EXPECT_EQ(empty.value_or("fallback"), "fallback");
  EXPECT_THROW((void)empty.value(), std::bad_optional_access);
}

TEST(BoxedTest, CopiesAreDeepAndAssignmentsReplaceTheValue) {
  Boxed<std::string> a = std::string("first");
  Boxed<std::string> b = a;
  *b = "second";
  EXPECT_EQ(*a, "first");
  EXPECT_EQ(*b, "second");
  a = b;
  EXPECT_EQ(*a, "second");
  b->append("!");
  EXPECT_EQ(*a, "second");
  a = std::nullopt;
  EXPECT_FALSE(a.has_value());
  a.emplace(3, 'x');
  EXPECT_EQ(a.value(), "xxx");
  a.reset();
  EXPECT_FALSE(a.has_value());
  Boxed<std::string> moved = std::move(b);
  EXPECT_EQ(*moved, "second!");
}

TEST(BoxedTest, ComparesAndConvertsLikeStdOptional) {
  Boxed<int64_t> a;
  EXPECT_FALSE(a == 0) << "unset is not equal to any value";
  a = 5;
  EXPECT_TRUE(a == 5);
  EXPECT_TRUE(5 == a);
  EXPECT_FALSE(a == 6);
  EXPECT_TRUE(a == std::optional<int64_t>(5));
  EXPECT_FALSE(a == std::optional<int64_t>());
  EXPECT_TRUE(a == Boxed<int64_t>(int64_t{5}));
  EXPECT_FALSE(a == Boxed<int64_t>());
  EXPECT_TRUE(Boxed<int64_t>() == Boxed<int64_t>());

  const std::optional<int64_t> as_optional = a;  // for code that takes a std::optional
  EXPECT_EQ(as_optional, 5);
  a = std::optional<int64_t>();
  EXPECT_FALSE(a.has_value());
  a = std::optional<int64_t>(7);
  EXPECT_EQ(*a, 7);
  EXPECT_EQ(std::optional<int64_t>(a), 7);
}

}  // namespace
}  // namespace engine
