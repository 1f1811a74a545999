// The Newton system's assembly (BlockAssembler) against Eigen's setFromTriplets, bit for bit,
// and the LDLT's reused symbolic analysis (LinearSolverWorkspace) against a fresh LDLT.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "concord/solver/block_assembler.hpp"
#include "concord/solver/linear_solver.hpp"

using namespace concord;

namespace {

using Triplets = std::vector<Eigen::Triplet<double>>;

// The reference: setFromTriplets over the free rows and columns.
SparseMatrix reference(const Triplets& t, const std::vector<int>& index, int free) {
    Triplets f;
    for (const auto& x : t) {
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

// Triplets as the energies emit them: dense blocks (zeros skipped) at block-aligned positions,
// many blocks repeated (so entries have several addends of mixed magnitude whose sum depends
// on the order), a few blocks with exact zeros and cancelling pairs, and some stray triplets
// at unaligned positions.
Triplets random_triplets(int n, int block, std::mt19937& rng) {
    std::uniform_int_distribution<int> pick_block(0, (n + block - 1) / block - 1);
    std::uniform_int_distribution<int> pick(0, n - 1);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    std::uniform_int_distribution<int> scale(-20, 20);
    Triplets t;
    for (int k = 0; k < 60; ++k) {
        const int bi = pick_block(rng), bj = pick_block(rng);
        for (int j = 0; j < block; ++j)
            for (int i = 0; i < block; ++i) {
                const int r = bi * block + i, c = bj * block + j;
                if (r >= n || c >= n) continue;
                if ((i + j + k) % 7 == 0) continue;  // a zero the emitter skips
                t.emplace_back(r, c, std::ldexp(u(rng), scale(rng)));
            }
        if (k % 10 == 0) {  // an entry that sums to exactly zero stays stored
            const int r = bi * block, c = bj * block;
            if (r < n && c < n) {
                t.emplace_back(r, c, 0.375);
                t.emplace_back(r, c, -0.375);
            }
        }
    }
    for (int k = 0; k < 40; ++k) t.emplace_back(pick(rng), pick(rng), u(rng));
    return t;
}

}  // namespace

TEST(BlockAssembler, MatchesSetFromTripletsBitForBit) {
    std::mt19937 rng(7);
    for (int trial = 0; trial < 40; ++trial) {
        const int block = trial % 4 == 3 ? 5 : 12;  // 5: triplet blocks not aligned to it
        const int n = 12 * (1 + trial % 9) + (trial % 5 == 4 ? 7 : 0);
        std::vector<int> index(static_cast<std::size_t>(n));
        int free = 0;
        for (int i = 0; i < n; ++i) {
            // Fixed unknowns: whole bodies on some trials, scattered ones on others.
            const bool fixed = trial % 3 == 1 ? (i / 12) % 3 == 1 : (trial % 3 == 2 && i % 11 == 3);
            index[static_cast<std::size_t>(i)] = fixed ? -1 : free++;
        }
        const Triplets t = random_triplets(n, 12, rng);
        BlockAssembler a(index, free, block);
        SparseMatrix H;
        a.assemble(t, H);
        SCOPED_TRACE(testing::Message() << "trial " << trial << ", n " << n);
        expect_identical(H, reference(t, index, free));
        // The assembler's buffers are reused: a second, different assembly is still exact.
        const Triplets t2 = random_triplets(n, 12, rng);
        a.assemble(t2, H);
        expect_identical(H, reference(t2, index, free));
    }
}

TEST(BlockAssembler, EmptyAndAllFixedSystems) {
    BlockAssembler a({0, 1, 2}, 3, 12);
    SparseMatrix H;
    a.assemble({}, H);
    EXPECT_EQ(H.rows(), 3);
    EXPECT_EQ(H.nonZeros(), 0);
    BlockAssembler fixed({-1, -1}, 0, 12);
    fixed.assemble({{0, 0, 1.0}, {1, 0, 2.0}}, H);
    EXPECT_EQ(H.rows(), 0);
    EXPECT_EQ(H.nonZeros(), 0);
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
