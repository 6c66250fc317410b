// Einsum equations read against their operands' shapes (core/einsum.h): each letter's size, the
// axes "..." stands for, the output's shape in explicit and implicit mode, and what is refused.
#include "core/einsum.h"

#include <gtest/gtest.h>

namespace placer::testing {
namespace einsum_test {

TEST(Einsum, ExplicitOutputAndLetterSizes) {
  auto batched = readEinsum("bij,bjk->bik", {Shape{2, 3, 4}, Shape{2, 4, 5}});
  ASSERT_TRUE(batched.has_value());
  EXPECT_EQ(batched->operands, 2u);
  EXPECT_EQ(batched->output, (Shape{2, 3, 5}));
  EXPECT_EQ(batched->letters, (std::map<char, std::int64_t>{{'b', 2}, {'i', 3}, {'j', 4}, {'k', 5}}));
  EXPECT_DOUBLE_EQ(batched->points(), 120);
  // Spaces are ignored; the output may reorder and drop letters.
  auto transposed = readEinsum(" ij -> ji ", {Shape{3, 7}});
  ASSERT_TRUE(transposed.has_value());
  EXPECT_EQ(transposed->output, (Shape{7, 3}));
  auto summed = readEinsum("ij->", {Shape{3, 7}});
  ASSERT_TRUE(summed.has_value());
  EXPECT_EQ(summed->output, Shape{});
}

TEST(Einsum, EllipsisBroadcastsFromTheRight) {
  // [6, 2] before the letters of the first operand, nothing in the second: the output keeps them
  // where "..." stands in it.
  auto left = readEinsum("...ij,jk->...ik", {Shape{6, 2, 3, 4}, Shape{4, 5}});
  ASSERT_TRUE(left.has_value());
  EXPECT_EQ(left->ellipsis, (Shape{6, 2}));
  EXPECT_EQ(left->output, (Shape{6, 2, 3, 5}));
  auto right = readEinsum("ij...,jk->ik...", {Shape{3, 4, 6}, Shape{4, 5}});
  ASSERT_TRUE(right.has_value());
  EXPECT_EQ(right->output, (Shape{3, 5, 6}));
  // A 1 broadcasts against 7, in the ellipsis and in a letter.
  auto broadcast = readEinsum("...ij,...jk->...ik", {Shape{1, 3, 4}, Shape{7, 1, 5}});
  ASSERT_TRUE(broadcast.has_value());
  EXPECT_EQ(broadcast->output, (Shape{7, 3, 5}));
  EXPECT_DOUBLE_EQ(broadcast->points(), 7.0 * 3 * 4 * 5);
}

TEST(Einsum, ImplicitOutputIsTheEllipsisThenTheLettersSeenOnce) {
  auto matmul = readEinsum("ij,jk", {Shape{3, 4}, Shape{4, 5}});
  ASSERT_TRUE(matmul.has_value());
  EXPECT_EQ(matmul->output, (Shape{3, 5}));
  auto alphabetical = readEinsum("...ba", {Shape{9, 2, 3}});  // letters seen once, sorted: a, b
  ASSERT_TRUE(alphabetical.has_value());
  EXPECT_EQ(alphabetical->output, (Shape{9, 3, 2}));
  auto trace = readEinsum("ii", {Shape{4, 4}});
  ASSERT_TRUE(trace.has_value());
  EXPECT_EQ(trace->output, Shape{});
  EXPECT_DOUBLE_EQ(trace->points(), 4);
}

TEST(Einsum, MismatchesAreRefused) {
  EXPECT_FALSE(readEinsum("ij,jk->ik", {Shape{2, 3, 4}, Shape{3, 5}}));  // a letter short, no "..."
  EXPECT_FALSE(readEinsum("ijk->i", {Shape{2, 3}}));                    // more letters than axes
  EXPECT_FALSE(readEinsum("ij,jk->ik", {Shape{2, 3}, Shape{4, 5}}));    // j is 3 and 4
  EXPECT_FALSE(readEinsum("ij->iz", {Shape{2, 3}}));                    // z in no operand
  EXPECT_FALSE(readEinsum("ij,jk->ik", {Shape{2, 3}}));                 // two terms, one operand
  EXPECT_FALSE(readEinsum("i.j->i", {Shape{2, 3}}));                    // a lone "."
  EXPECT_FALSE(readEinsum("...i...->i", {Shape{2, 3}}));                // "..." twice
}

}  // namespace einsum_test
}  // namespace placer::testing
