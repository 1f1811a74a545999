// The supernodal block LDLᵀ: solutions against dense factorisations (definite, indefinite,
// mixed block sizes, fixed columns removed), the structure it finds, failure on zero pivots,
// reuse of one analysis, and the same bits on one and on two threads.
#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include <Eigen/Dense>
#include <Eigen/SparseCholesky>
#include <cstring>
#include <random>

#include "concord/solver/block_ldlt.hpp"

using namespace concord;

namespace {

// A body graph's Hessian: per body a dense SPD (or, when `negative`, negative definite) block of
// its size, per edge a dense coupling block of small norm. Columns listed in `drop` are removed
// (fixed unknowns), as the Newton system removes them.
struct BodyGraph {
    std::vector<int> sizes;
    std::vector<std::pair<int, int>> edges;
};

SparseMatrix body_matrix(const BodyGraph& g, std::mt19937& rng, bool indefinite = false,
                         const std::vector<int>& drop = {}) {
    std::normal_distribution<double> n(0.0, 1.0);
    std::vector<int> start{0};
    for (int s : g.sizes) start.push_back(start.back() + s);
    std::vector<int> index(static_cast<std::size_t>(start.back()), 0);
    for (int i : drop) index[i] = -1;
    int m = 0;
    for (int& i : index) i = i < 0 ? -1 : m++;
    // Every entry of a body's or a body pair's block is stored (as the assembler stores them).
    std::vector<Eigen::Triplet<double>> t;
    auto put = [&](int a, int b, const MatX& B) {
        for (int j = 0; j < B.cols(); ++j)
            for (int i = 0; i < B.rows(); ++i) {
                const int r = index[start[a] + i], c = index[start[b] + j];
                if (r >= 0 && c >= 0) t.emplace_back(r, c, B(i, j));
            }
    };
    for (std::size_t b = 0; b < g.sizes.size(); ++b) {
        const int s = g.sizes[b];
        MatX R(s, s);
        for (int i = 0; i < s; ++i)
            for (int j = 0; j < s; ++j) R(i, j) = n(rng);
        MatX B = R * R.transpose() + 2.0 * s * MatX::Identity(s, s);
        if (indefinite && b % 3 == 1) B = -B;
        put(static_cast<int>(b), static_cast<int>(b), B);
    }
    for (auto [a, b] : g.edges) {
        MatX C(g.sizes[a], g.sizes[b]);
        for (int i = 0; i < C.rows(); ++i)
            for (int j = 0; j < C.cols(); ++j) C(i, j) = 0.3 * n(rng);
        put(a, b, C);
        put(b, a, C.transpose());
    }
    SparseMatrix A(m, m);
    A.setFromTriplets(t.begin(), t.end());
    A.makeCompressed();
    return A;
}

BodyGraph grid(int k, int size = 12) {
    BodyGraph g;
    auto id = [k](int x, int y, int z) { return (x * k + y) * k + z; };
    for (int i = 0; i < k * k * k; ++i) g.sizes.push_back(size);
    for (int x = 0; x < k; ++x)
        for (int y = 0; y < k; ++y)
            for (int z = 0; z < k; ++z) {
                if (x + 1 < k) g.edges.emplace_back(id(x, y, z), id(x + 1, y, z));
                if (y + 1 < k) g.edges.emplace_back(id(x, y, z), id(x, y + 1, z));
                if (z + 1 < k) g.edges.emplace_back(id(x, y, z), id(x, y, z + 1));
            }
    return g;
}

VecX random_vector(Eigen::Index n, std::mt19937& rng) {
    std::normal_distribution<double> d(0.0, 1.0);
    VecX v(n);
    for (Eigen::Index i = 0; i < n; ++i) v[i] = d(rng);
    return v;
}

double solve_error(const SparseMatrix& A, const VecX& b) {
    BlockLDLT f;
    f.analyze(A);
    EXPECT_TRUE(f.factorize(A));
    VecX x;
    f.solve(b, x);
    const VecX ref = MatX(A).partialPivLu().solve(b);
    return (x - ref).norm() / ref.norm();
}

// Analysis, factorisation and solve with at most `threads` threads.
VecX solve_on(int threads, const SparseMatrix& A, const VecX& b) {
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism, threads);
    BlockLDLT f;
    f.analyze(A);
    EXPECT_TRUE(f.factorize(A));
    VecX x;
    f.solve(b, x);
    return x;
}

}  // namespace

TEST(BlockLDLT, SolvesSpdBodyGraphsLikeADenseFactorisation) {
    std::mt19937 rng(3);
    const BodyGraph g = grid(4);
    const SparseMatrix A = body_matrix(g, rng);
    EXPECT_LT(solve_error(A, random_vector(A.rows(), rng)), 1e-11);
}

TEST(BlockLDLT, SolvesIndefiniteSystemsWithoutZeroPivots) {
    // A Hessian not projected to PSD: some bodies' blocks negative definite. Factorised without
    // pivoting like a scalar LDLᵀ, with the negative pivots counted.
    std::mt19937 rng(4);
    const SparseMatrix A = body_matrix(grid(3), rng, /*indefinite=*/true);
    EXPECT_LT(solve_error(A, random_vector(A.rows(), rng)), 1e-10);
    BlockLDLT f;
    f.analyze(A);
    ASSERT_TRUE(f.factorize(A));
    EXPECT_EQ(f.negative_pivots(), 12 * 9);  // bodies 1, 4, ..., 25 of 27
}

TEST(BlockLDLT, MixedBodySizesAndRemovedColumns) {
    // Elastic bodies (12 + modes), a 1-column body, a pinned body's columns removed in part.
    std::mt19937 rng(5);
    BodyGraph g;
    g.sizes = {12, 17, 12, 1, 20, 12, 12, 15};
    g.edges = {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}, {5, 6}, {6, 7}, {7, 0}, {1, 5}, {2, 6}};
    const std::vector<int> drop{12 + 17 + 3, 12 + 17 + 4, 12 + 17 + 11, 0, 5};
    const SparseMatrix A = body_matrix(g, rng, false, drop);
    EXPECT_LT(solve_error(A, random_vector(A.rows(), rng)), 1e-11);
    BlockLDLT f;
    f.analyze(A);
    // A body whose columns were partly removed still forms one group (its remaining columns
    // share a pattern); every body is one group.
    EXPECT_EQ(f.num_groups(), 8);
}

TEST(BlockLDLT, FindsBodiesAsGroupsAndAChainWithoutFill) {
    std::mt19937 rng(6);
    BodyGraph chain;
    for (int i = 0; i < 10; ++i) chain.sizes.push_back(12);
    for (int i = 0; i + 1 < 10; ++i) chain.edges.emplace_back(i, i + 1);
    const SparseMatrix A = body_matrix(chain, rng);
    BlockLDLT f;
    f.analyze(A);
    EXPECT_EQ(f.num_groups(), 10);
    // A chain has no fill under a minimum-degree order: L holds the diagonal blocks and one
    // coupling block per edge; only the last two bodies can share a supernode (whose diagonal
    // block is then held whole: one block more).
    const std::size_t lower = 10 * 144 + 9 * 144;
    EXPECT_GE(f.factor_entries(), lower);
    EXPECT_LE(f.factor_entries(), lower + 144);  // at most one extra block where AMD starts inside
    EXPECT_LT(solve_error(A, random_vector(A.rows(), rng)), 1e-11);

    BodyGraph apart;  // no coupling: one supernode per body, nothing below any diagonal
    for (int i = 0; i < 5; ++i) apart.sizes.push_back(12);
    const SparseMatrix B = body_matrix(apart, rng);
    BlockLDLT g;
    g.analyze(B);
    EXPECT_EQ(g.num_supernodes(), 5);
    EXPECT_EQ(g.factor_entries(), 5u * 144u);
}

TEST(BlockLDLT, FillStaysNearEigensSimplicialLdlt) {
    // The ordering of body groups (AMD on the graph of groups) fills about what AMD on the
    // columns does: a 6 x 6 x 6 grid of bodies.
    std::mt19937 rng(7);
    const SparseMatrix A = body_matrix(grid(6), rng);
    BlockLDLT f;
    f.analyze(A);
    Eigen::SimplicialLDLT<SparseMatrix> ref;
    ref.analyzePattern(A);
    ref.factorize(A);
    const double ref_entries = static_cast<double>(ref.matrixL().nestedExpression().nonZeros());
    // L's stored entries (strictly lower) against the panels (diagonal blocks held whole).
    EXPECT_LT(static_cast<double>(f.factor_entries()), 1.5 * ref_entries + 216 * 144);
    const VecX b = random_vector(A.rows(), rng);
    VecX x;
    ASSERT_TRUE(f.factorize(A));
    f.solve(b, x);
    EXPECT_LT((x - ref.solve(b)).norm() / x.norm(), 1e-10);
}

TEST(BlockLDLT, ReportsAZeroPivot) {
    std::mt19937 rng(8);
    SparseMatrix A = body_matrix(grid(2), rng);
    // Body 3 made singular: its block zero, couplings kept (stored entries unchanged).
    for (int k = 0; k < A.outerSize(); ++k)
        for (SparseMatrix::InnerIterator it(A, k); it; ++it)
            if (it.row() >= 36 && it.row() < 48 && it.col() >= 36 && it.col() < 48)
                it.valueRef() = 0.0;
    // With coupling the first pivot of a later-ordered singular block may be nonzero; zero the
    // couplings too so that whichever order AMD picks, the block's first pivot is exactly zero.
    for (int k = 0; k < A.outerSize(); ++k)
        for (SparseMatrix::InnerIterator it(A, k); it; ++it)
            if ((it.row() >= 36 && it.row() < 48) || (it.col() >= 36 && it.col() < 48))
                it.valueRef() = 0.0;
    BlockLDLT f;
    f.analyze(A);
    EXPECT_FALSE(f.factorize(A));
    // A non-finite entry fails as well.
    SparseMatrix B = body_matrix(grid(2), rng);
    B.valuePtr()[0] = std::numeric_limits<double>::quiet_NaN();
    BlockLDLT g;
    g.analyze(B);
    EXPECT_FALSE(g.factorize(B));
}

TEST(BlockLDLT, OneAnalysisServesMatricesOfThePattern) {
    std::mt19937 rng(9);
    const BodyGraph g = grid(3);
    const SparseMatrix A1 = body_matrix(g, rng), A2 = body_matrix(g, rng);
    BlockLDLT f;
    f.analyze(A1);
    for (const SparseMatrix* A : {&A1, &A2, &A1}) {
        const VecX b = random_vector(A->rows(), rng);
        ASSERT_TRUE(f.factorize(*A));
        VecX x;
        f.solve(b, x);
        EXPECT_LT((*A * x - b).norm() / b.norm(), 1e-12);
    }
    // Another pattern is refused, not misread.
    const SparseMatrix other = body_matrix(grid(2), rng);
    EXPECT_THROW(f.factorize(other), std::invalid_argument);
    EXPECT_THROW(f.analyze(SparseMatrix(3, 4)), std::invalid_argument);
}

TEST(BlockLDLT, SameBitsOnOneAndTwoThreads) {
    // Large enough that subtrees run as parallel tasks (8 x 8 x 8 bodies, 6,144 unknowns).
    std::mt19937 rng(10);
    const SparseMatrix A = body_matrix(grid(8), rng);
    const VecX b = random_vector(A.rows(), rng);
    const VecX x1 = solve_on(1, A, b), x2 = solve_on(2, A, b), x2b = solve_on(2, A, b);
    EXPECT_LT((A * x1 - b).norm() / b.norm(), 1e-12);
    ASSERT_EQ(x1.size(), x2.size());
    EXPECT_EQ(
        0, std::memcmp(x1.data(), x2.data(), sizeof(double) * static_cast<std::size_t>(x1.size())));
    EXPECT_EQ(0, std::memcmp(x2.data(), x2b.data(),
                             sizeof(double) * static_cast<std::size_t>(x1.size())));
}

TEST(BlockLDLT, DisjointBodyGraphsSolveAsSeparateTreesOnAnyThreadCount) {
    // Two unconnected 6 x 6 x 6 grids: two roots, each with subtrees large enough for parallel
    // factorisation and triangular-solve tasks. The solution has a residual at rounding level and
    // the same bits on one and two threads.
    BodyGraph g = grid(6);
    const int half = static_cast<int>(g.sizes.size());
    const BodyGraph second = grid(6);
    g.sizes.insert(g.sizes.end(), second.sizes.begin(), second.sizes.end());
    for (auto [a, b] : second.edges) g.edges.emplace_back(a + half, b + half);
    std::mt19937 rng(12);
    const SparseMatrix A = body_matrix(g, rng);
    const VecX b = random_vector(A.rows(), rng);
    const VecX x1 = solve_on(1, A, b), x2 = solve_on(2, A, b);
    EXPECT_LT((A * x2 - b).norm() / b.norm(), 1e-12);
    ASSERT_EQ(x1.size(), x2.size());
    EXPECT_EQ(
        0, std::memcmp(x1.data(), x2.data(), sizeof(double) * static_cast<std::size_t>(x1.size())));
}

TEST(BlockLDLT, EmptyMatrix) {
    BlockLDLT f;
    f.analyze(SparseMatrix(0, 0));
    EXPECT_TRUE(f.factorize(SparseMatrix(0, 0)));
    VecX x;
    f.solve(VecX(0), x);
    EXPECT_EQ(x.size(), 0);
}
