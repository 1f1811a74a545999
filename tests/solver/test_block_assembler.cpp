// The Newton system's assembly (BlockAssembler) against Eigen's setFromTriplets over every block
// entry, bit for bit, and the LDLT's reused symbolic analysis (LinearSolverWorkspace) against a
// fresh LDLT.
#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include <cstring>
#include <random>

#include "concord/solver/block_assembler.hpp"
#include "concord/math/types.hpp"
#include "concord/solver/linear_solver.hpp"

using namespace concord;

namespace {

using Triplets = std::vector<Eigen::Triplet<double>>;

// The reference: setFromTriplets over every entry of every block, free rows and columns only.
SparseMatrix reference(const HessianBlocks& blocks, const std::vector<int>& index, int free) {
    Triplets f;
    for (const auto& x : blocks.triplets()) {
        const int r = index[static_cast<std::size_t>(x.row())];
        const int c = index[static_cast<std::size_t>(x.col())];
        if (r >= 0 && c >= 0) f.emplace_back(r, c, x.value());
    }
    SparseMatrix H(free, free);
    H.setFromTriplets(f.begin(), f.end());
    return H;
}

// Same stored entries in the same order, and the same bits in every value.
void expect_identical(const SparseMatrix& a, const SparseMatrix& b) {
    ASSERT_EQ(a.rows(), b.rows());
    ASSERT_EQ(a.cols(), b.cols());
    ASSERT_TRUE(a.isCompressed());
    ASSERT_TRUE(b.isCompressed());
    ASSERT_EQ(a.nonZeros(), b.nonZeros());
    for (Eigen::Index c = 0; c <= a.cols(); ++c) ASSERT_EQ(a.outerIndexPtr()[c], b.outerIndexPtr()[c]);
    for (Eigen::Index k = 0; k < a.nonZeros(); ++k) {
        ASSERT_EQ(a.innerIndexPtr()[k], b.innerIndexPtr()[k]) << "entry " << k;
        ASSERT_EQ(std::memcmp(a.valuePtr() + k, b.valuePtr() + k, sizeof(double)), 0)
            << "entry " << k << ": " << a.valuePtr()[k] << " vs " << b.valuePtr()[k];
    }
}

// Blocks as the energies write them: dense 12 x 12 blocks at aligned positions, many repeated
// (so entries have several addends of mixed magnitude whose sum depends on the order), some
// with exact zeros and cancelling pairs; unaligned blocks of other sizes (modal and joint
// blocks) that straddle the 12-grid; and single entries anywhere.
HessianBlocks random_blocks(int n, std::mt19937& rng) {
    std::uniform_int_distribution<int> pick_block(0, n / 12 - 1);
    std::uniform_int_distribution<int> pick(0, n - 1);
    std::uniform_int_distribution<int> size(1, 9);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    std::uniform_int_distribution<int> scale(-20, 20);
    auto value = [&] { return std::ldexp(u(rng), scale(rng)); };
    HessianBlocks h;
    for (int k = 0; k < 60; ++k) {
        const int bi = pick_block(rng), bj = pick_block(rng);
        Mat12 B;
        for (int j = 0; j < 12; ++j)
            for (int i = 0; i < 12; ++i) B(i, j) = (i + j + k) % 7 == 0 ? 0.0 : value();
        h.add(12 * bi, 12 * bj, B);
        if (k % 10 == 0) {  // an entry that sums to exactly zero stays stored
            h.add(12 * bi, 12 * bj, 0.375);
            h.add(12 * bi, 12 * bj, -0.375);
        }
        if (k % 4 == 0) {  // a block off the grid, clipped to the matrix
            const int r = pick(rng), c = pick(rng);
            const int rows = std::min(size(rng), n - r), cols = std::min(size(rng), n - c);
            MatX M(rows, cols);
            for (int j = 0; j < cols; ++j)
                for (int i = 0; i < rows; ++i) M(i, j) = value();
            h.add(r, c, M);
        }
    }
    for (int k = 0; k < 40; ++k) h.add(pick(rng), pick(rng), u(rng));
    return h;
}

}  // namespace

TEST(BlockAssembler, MatchesSetFromTripletsBitForBit) {
    std::mt19937 rng(7);
    for (int trial = 0; trial < 40; ++trial) {
        const int block = trial % 4 == 3 ? 5 : 12;  // 5: the blocks are not aligned to it
        const int n = 12 * (1 + trial % 9) + (trial % 5 == 4 ? 7 : 0);
        std::vector<int> index(static_cast<std::size_t>(n));
        int free = 0;
        for (int i = 0; i < n; ++i) {
            // Fixed unknowns: whole bodies on some trials, scattered ones on others.
            const bool fixed = trial % 3 == 1 ? (i / 12) % 3 == 1 : (trial % 3 == 2 && i % 11 == 3);
            index[static_cast<std::size_t>(i)] = fixed ? -1 : free++;
        }
        const HessianBlocks t = random_blocks(n, rng);
        BlockAssembler a(index, free, block);
        SparseMatrix H;
        a.assemble(t, H);
        SCOPED_TRACE(testing::Message() << "trial " << trial << ", n " << n);
        expect_identical(H, reference(t, index, free));
        // The assembler's buffers are reused: a second, different assembly is still exact.
        const HessianBlocks t2 = random_blocks(n, rng);
        a.assemble(t2, H);
        expect_identical(H, reference(t2, index, free));
    }
}

TEST(BlockAssembler, SameMatrixOnOneAndTwoThreads) {
    // Many blocks per slot, so that slots are summed and columns written by several tasks.
    std::mt19937 rng(11);
    const int n = 12 * 40;
    std::vector<int> index(static_cast<std::size_t>(n));
    int free = 0;
    for (int i = 0; i < n; ++i) index[static_cast<std::size_t>(i)] = i % 37 == 5 ? -1 : free++;
    std::vector<HessianBlocks> parts;
    for (int k = 0; k < 30; ++k) parts.push_back(random_blocks(n, rng));
    HessianBlocks t;
    t.append_all(parts);
    auto assemble = [&](int threads) {
        tbb::global_control limit(tbb::global_control::max_allowed_parallelism, threads);
        BlockAssembler a(index, free, 12);
        SparseMatrix H;
        a.assemble(t, H);
        return H;
    };
    const SparseMatrix one = assemble(1), two = assemble(2);
    expect_identical(one, reference(t, index, free));
    expect_identical(two, one);
}

TEST(BlockAssembler, EmptyAndAllFixedSystems) {
    BlockAssembler a({0, 1, 2}, 3, 12);
    SparseMatrix H;
    a.assemble(HessianBlocks{}, H);
    EXPECT_EQ(H.rows(), 3);
    EXPECT_EQ(H.nonZeros(), 0);
    BlockAssembler fixed({-1, -1}, 0, 12);
    HessianBlocks two;
    two.add(0, 0, 1.0);
    two.add(1, 0, 2.0);
    fixed.assemble(two, H);
    EXPECT_EQ(H.rows(), 0);
    EXPECT_EQ(H.nonZeros(), 0);
}

TEST(HessianBlocks, AppendAllKeepsEveryPartsBlocksInOrder) {
    std::mt19937 rng(12);
    std::vector<HessianBlocks> parts;
    for (int k = 0; k < 7; ++k) parts.push_back(k == 3 ? HessianBlocks{} : random_blocks(60, rng));
    HessianBlocks all;
    all.add(0, 0, 2.0);
    all.append_all(parts);
    std::vector<Eigen::Triplet<double>> expected{{0, 0, 2.0}};
    std::size_t blocks = 1;
    for (const auto& p : parts) {
        const auto t = p.triplets();
        expected.insert(expected.end(), t.begin(), t.end());
        blocks += p.size();
    }
    ASSERT_EQ(all.size(), blocks);
    const auto b = all.triplets();
    ASSERT_EQ(expected.size(), b.size());
    for (std::size_t k = 0; k < b.size(); ++k) {
        EXPECT_EQ(expected[k].row(), b[k].row());
        EXPECT_EQ(expected[k].col(), b[k].col());
        EXPECT_EQ(expected[k].value(), b[k].value());
    }
}

TEST(HessianBlocks, KeepsEveryEntryAndScalesFromABlockOn) {
    HessianBlocks h;
    Mat3 A;
    A << 1, 0, 2, 0, 3, 0, 4, 0, 5;
    h.add(3, 6, A);
    h.add(0, 0, 7.0);
    std::vector<HessianBlocks> tail(1);
    tail[0].add(1, 1, Eigen::Matrix2d::Constant(2.0));
    h.append_all(tail);
    h.scale_from(1, 10.0);
    ASSERT_EQ(h.size(), 3u);
    const auto t = h.triplets();
    ASSERT_EQ(t.size(), 9u + 1u + 4u);  // zeros included
    EXPECT_EQ(t[2].row(), 5);            // column-major: (3..5, 6) first
    EXPECT_EQ(t[2].col(), 6);
    EXPECT_EQ(t[2].value(), 4.0);
    EXPECT_EQ(t[9].value(), 70.0);       // scaled from block 1 on
    EXPECT_EQ(t[10].value(), 20.0);
    const MatX H(h.sparse(9));
    EXPECT_EQ(H(3, 8), 2.0);             // block 0 is not scaled
    EXPECT_EQ(H(0, 0), 70.0);
    EXPECT_EQ(H(1, 2), 20.0);
}

TEST(HessianBlocks, AddSummedJoinsABlockAtTheSamePlaceAmongTheLastFew) {
    // Pair after pair of the same two bodies: four 2 x 2 blocks each, summed into the first
    // pair's four; a block at a new place, of another size, or further back than kSumBack
    // blocks is a new block. The summed matrix is the one of adding every block.
    std::mt19937 rng(3);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    HessianBlocks summed, plain;
    auto both = [&](int r, int c, const MatX& B) {
        summed.add_summed(r, c, B);
        plain.add(r, c, B);
    };
    auto random = [&](int rows, int cols) {
        MatX B(rows, cols);
        for (int j = 0; j < cols; ++j)
            for (int i = 0; i < rows; ++i) B(i, j) = u(rng);
        return B;
    };
    for (int pair = 0; pair < 3; ++pair)
        for (int r : {0, 2})
            for (int c : {0, 2}) both(r, c, random(2, 2));
    EXPECT_EQ(summed.size(), 4u);
    both(0, 0, random(3, 3));  // same place, another size
    EXPECT_EQ(summed.size(), 5u);
    for (int k = 0; k < 4; ++k) both(4 + 2 * k, 4, random(2, 2));  // four new places
    EXPECT_EQ(summed.size(), 9u);
    both(0, 2, random(2, 2));  // (0, 2) lies more than kSumBack blocks back
    EXPECT_EQ(summed.size(), 10u);
    both(10, 4, random(2, 2));  // the last block's place
    EXPECT_EQ(summed.size(), 10u);
    const MatX a(summed.sparse(12)), b(plain.sparse(12));
    EXPECT_LT((a - b).cwiseAbs().maxCoeff(), 1e-14);
    EXPECT_GT(a.cwiseAbs().maxCoeff(), 0.5);
}

TEST(LinearSolverWorkspace, ReusedAnalysisGivesTheFreshFactorisationBitForBit) {
    std::mt19937 rng(3);
    std::normal_distribution<double> g(0.0, 1.0);
    const int n = 60;
    // Two SPD matrices with the same pattern (a band) and one with another pattern.
    auto band = [&](int width) {
        MatX A = MatX::Zero(n, n);
        for (int i = 0; i < n; ++i)
            for (int j = std::max(0, i - width); j <= i; ++j) A(i, j) = A(j, i) = 0.1 * g(rng);
        for (int i = 0; i < n; ++i) A(i, i) = 4.0 + std::abs(g(rng));
        SparseMatrix S = A.sparseView();
        S.makeCompressed();
        return S;
    };
    const SparseMatrix A1 = band(3), A2 = band(3), A3 = band(5);
    VecX b(n);
    for (int i = 0; i < n; ++i) b[i] = g(rng);
    LinearSolverParams p;
    p.type = LinearSolverType::LDLT;
    LinearSolverWorkspace w;
    for (const SparseMatrix* A : {&A1, &A2, &A3, &A3}) {
        VecX fresh, reused;
        ASSERT_TRUE(solve_linear_system(*A, b, fresh, p).success);
        ASSERT_TRUE(solve_linear_system(*A, b, reused, p, &w).success);
        ASSERT_EQ(std::memcmp(fresh.data(), reused.data(), sizeof(double) * n), 0);
        EXPECT_LT((*A * reused - b).norm(), 1e-12 * b.norm());
    }
    // A1 analysed; A2 has A1's pattern; A3 is analysed once and then reused.
    EXPECT_EQ(w.analyses, 2);
    EXPECT_EQ(w.reuses, 2);
}
