#include <gtest/gtest.h>

#include <random>

#include "concord/solver/linear_solver.hpp"

using namespace concord;

namespace {

// Random sparse SPD matrix with 12x12 diagonal blocks and some off-diagonal coupling.
SparseMatrix random_spd(int blocks, std::mt19937& rng) {
    std::normal_distribution<double> n(0.0, 1.0);
    const int size = 12 * blocks;
    MatX B = MatX::Zero(size, size);
    for (int b = 0; b < blocks; ++b) {
        MatX R(12, 12);
        for (int i = 0; i < 12; ++i)
            for (int j = 0; j < 12; ++j) R(i, j) = n(rng);
        B.block(12 * b, 12 * b, 12, 12) = R * R.transpose() + 12.0 * MatX::Identity(12, 12);
    }
    for (int b = 0; b + 1 < blocks; ++b)
        for (int i = 0; i < 12; ++i) {
            const double v = 0.5 * n(rng);
            B(12 * b + i, 12 * (b + 1) + i) += v;
            B(12 * (b + 1) + i, 12 * b + i) += v;
        }
    return B.sparseView();
}

}  // namespace

TEST(LinearSolver, LdltAndCgSolveSpdSystems) {
    std::mt19937 rng(1);
    const SparseMatrix A = random_spd(20, rng);
    VecX b = VecX::Random(A.rows());
    for (LinearSolverType type : {LinearSolverType::LDLT, LinearSolverType::CG, LinearSolverType::Auto}) {
        LinearSolverParams p;
        p.type = type;
        p.cg_tolerance = 1e-12;
        VecX x;
        const LinearSolveResult r = solve_linear_system(A, b, x, p);
        ASSERT_TRUE(r.success) << r.failure;
        EXPECT_LT((A * x - b).norm() / b.norm(), 1e-10);
    }
}

TEST(LinearSolver, BlockJacobiMakesCgConvergeFastOnBlockScaledSystems) {
    // Bodies with masses spread over many orders of magnitude: per-body preconditioning makes
    // the iteration count independent of the spread.
    std::mt19937 rng(2);
    SparseMatrix A = random_spd(30, rng);
    VecX scale(A.rows());
    for (int b = 0; b < 30; ++b) scale.segment(12 * b, 12).setConstant(std::pow(10.0, b % 7));
    A = scale.asDiagonal() * A * scale.asDiagonal();
    const VecX b = VecX::Random(A.rows());
    LinearSolverParams p;
    p.type = LinearSolverType::CG;
    p.cg_tolerance = 1e-10;
    VecX x;
    const LinearSolveResult r = solve_cg_block_jacobi(A, b, x, p);
    ASSERT_TRUE(r.success);
    EXPECT_LT(r.iterations, 60);
    EXPECT_LT((A * x - b).norm() / b.norm(), 1e-9);
}

TEST(LinearSolver, CgReportsIndefiniteMatrixInsteadOfDiverging) {
    MatX D = MatX::Identity(24, 24);
    D(5, 5) = -1.0;
    const SparseMatrix A = D.sparseView();
    const VecX b = VecX::Ones(24);
    VecX x;
    LinearSolverParams p;
    p.block_size = 1;  // plain Jacobi so the negative entry is seen by CG, not the preconditioner
    const LinearSolveResult r = solve_cg_block_jacobi(A, b, x, p);
    EXPECT_FALSE(r.success);
    EXPECT_NE(r.failure.find("not positive definite"), std::string::npos);
    EXPECT_TRUE(x.allFinite());
}
