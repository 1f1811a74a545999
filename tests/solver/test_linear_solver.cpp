// Linear solvers of the Newton system: agreement with LDLT, Auto's choice, preconditioners,
// and graceful failure on indefinite or singular matrices.
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <random>

#include "concord/solver/krylov.hpp"
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

// 2D Laplacian on a k x k grid (SPD, condition number ~ k^2): needs a real preconditioner.
SparseMatrix laplacian_2d(int k) {
    std::vector<Eigen::Triplet<double>> t;
    auto id = [k](int i, int j) { return i * k + j; };
    for (int i = 0; i < k; ++i)
        for (int j = 0; j < k; ++j) {
            t.emplace_back(id(i, j), id(i, j), 4.0 + 1e-3);
            if (i > 0) t.emplace_back(id(i, j), id(i - 1, j), -1.0);
            if (i + 1 < k) t.emplace_back(id(i, j), id(i + 1, j), -1.0);
            if (j > 0) t.emplace_back(id(i, j), id(i, j - 1), -1.0);
            if (j + 1 < k) t.emplace_back(id(i, j), id(i, j + 1), -1.0);
        }
    SparseMatrix A(k * k, k * k);
    A.setFromTriplets(t.begin(), t.end());
    return A;
}

double relative_residual(const SparseMatrix& A, const VecX& x, const VecX& b) {
    return (A * x - b).norm() / b.norm();
}

}  // namespace

TEST(LinearSolver, IterativeSolversAgreeWithLdltOnSpdSystems) {
    std::mt19937 rng(1);
    const SparseMatrix A = random_spd(20, rng);
    const VecX b = VecX::Random(A.rows());
    LinearSolverParams direct;
    direct.type = LinearSolverType::LDLT;
    VecX x_ldlt;
    ASSERT_TRUE(solve_linear_system(A, b, x_ldlt, direct).success);
    ASSERT_LT(relative_residual(A, x_ldlt, b), 1e-12);
    for (LinearSolverType type :
         {LinearSolverType::CG, LinearSolverType::MINRES, LinearSolverType::GMRES})
        for (PreconditionerType pre :
             {PreconditionerType::None, PreconditionerType::Jacobi, PreconditionerType::PerBody,
              PreconditionerType::IncompleteCholesky}) {
            LinearSolverParams p;
            p.type = type;
            p.preconditioner = pre;
            p.tolerance = 1e-12;
            p.gmres_restart = 50;
            VecX x;
            const LinearSolveResult r = solve_linear_system(A, b, x, p);
            ASSERT_TRUE(r.success) << static_cast<int>(type) << " " << r.failure;
            EXPECT_EQ(r.used, type);
            EXPECT_FALSE(r.hit_iteration_limit);
            EXPECT_GT(r.iterations, 0);
            EXPECT_LT((x - x_ldlt).norm() / x_ldlt.norm(), 1e-9)
                << "solver " << static_cast<int>(type) << " preconditioner "
                << static_cast<int>(pre);
        }
}

TEST(LinearSolver, AutoPicksLdltForSmallAndCgForLargeSystems) {
    std::mt19937 rng(3);
    const SparseMatrix A = random_spd(10, rng);  // 120 unknowns
    const VecX b = VecX::Random(A.rows());
    LinearSolverParams p;  // Auto
    p.direct_max_dofs = 120;
    VecX x;
    EXPECT_EQ(solve_linear_system(A, b, x, p).used, LinearSolverType::LDLT);
    p.direct_max_dofs = 119;
    const LinearSolveResult r = solve_linear_system(A, b, x, p);
    EXPECT_EQ(r.used, LinearSolverType::CG);
    EXPECT_EQ(r.preconditioner, PreconditionerType::PerBody);
    EXPECT_LT(relative_residual(A, x, b), 1e-7);
    EXPECT_EQ(resolve_linear_solver(LinearSolverType::Auto, 60000, LinearSolverParams{}),
              LinearSolverType::LDLT);
    EXPECT_EQ(resolve_linear_solver(LinearSolverType::Auto, 60001, LinearSolverParams{}),
              LinearSolverType::CG);
    EXPECT_EQ(resolve_linear_solver(LinearSolverType::MINRES, 10, LinearSolverParams{}),
              LinearSolverType::MINRES);
}

TEST(LinearSolver, PerBodyPreconditionerMakesCgConvergeFastOnBlockScaledSystems) {
    // Bodies with masses spread over many orders of magnitude: per-body preconditioning makes
    // the iteration count independent of the spread.
    std::mt19937 rng(2);
    SparseMatrix A = random_spd(30, rng);
    VecX scale(A.rows());
    for (int b = 0; b < 30; ++b) scale.segment(12 * b, 12).setConstant(std::pow(10.0, b % 7));
    A = scale.asDiagonal() * A * scale.asDiagonal();
    const VecX b = VecX::Random(A.rows());
    VecX x;
    const LinearSolveResult r =
        conjugate_gradient(A, b, x, Preconditioner(A, PreconditionerType::PerBody), 1e-10, 1000);
    ASSERT_TRUE(r.success);
    EXPECT_LT(r.iterations, 60);
    EXPECT_LT(relative_residual(A, x, b), 1e-9);
    const LinearSolveResult plain =
        conjugate_gradient(A, b, x, Preconditioner(A, PreconditionerType::None), 1e-10, 1000);
    EXPECT_GT(plain.iterations, 3 * r.iterations);
}

TEST(LinearSolver, IncompleteCholeskyBeatsJacobiOnALaplacian) {
    const SparseMatrix A = laplacian_2d(30);
    const VecX b = VecX::Ones(A.rows());
    VecX x;
    const LinearSolveResult jacobi =
        conjugate_gradient(A, b, x, Preconditioner(A, PreconditionerType::Jacobi), 1e-10, 5000);
    const LinearSolveResult ic = conjugate_gradient(
        A, b, x, Preconditioner(A, PreconditionerType::IncompleteCholesky), 1e-10, 5000);
    ASSERT_TRUE(ic.success);
    EXPECT_EQ(ic.preconditioner, PreconditionerType::IncompleteCholesky);
    EXPECT_LT(relative_residual(A, x, b), 1e-9);
    EXPECT_LT(10 * ic.iterations, 7 * jacobi.iterations)
        << ic.iterations << " vs " << jacobi.iterations;
}

TEST(LinearSolver, CgReportsIndefiniteMatrixInsteadOfDiverging) {
    MatX D = MatX::Identity(24, 24);
    D(5, 5) = -1.0;
    const SparseMatrix A = D.sparseView();
    const VecX b = VecX::Ones(24);
    VecX x;
    // Plain Jacobi uses |diagonal|, so the negative entry is seen by CG, not the preconditioner.
    const LinearSolveResult r =
        conjugate_gradient(A, b, x, Preconditioner(A, PreconditionerType::Jacobi), 1e-10, 100);
    EXPECT_FALSE(r.success);
    EXPECT_NE(r.failure.find("not positive definite"), std::string::npos);
    EXPECT_TRUE(x.allFinite());
    // The per-body variant (12x12 blocks) keeps M SPD with |eigenvalues|, so the same holds.
    LinearSolverParams p;
    p.type = LinearSolverType::CG;
    const LinearSolveResult r2 = solve_linear_system(A, b, x, p);
    EXPECT_FALSE(r2.success);
    EXPECT_TRUE(x.allFinite());
}

TEST(LinearSolver, MinresAndGmresSolveSymmetricIndefiniteSystems) {
    std::mt19937 rng(4);
    SparseMatrix A = random_spd(8, rng);
    // Shift into the middle of the spectrum: symmetric, indefinite, nonsingular.
    const Eigen::SelfAdjointEigenSolver<MatX> eig{MatX(A)};
    const VecX lambda = eig.eigenvalues();
    const double shift = 0.5 * (lambda[40] + lambda[41]);
    SparseMatrix I(A.rows(), A.cols());
    I.setIdentity();
    A = A - shift * I;
    const VecX b = VecX::Random(A.rows());
    for (LinearSolverType type : {LinearSolverType::MINRES, LinearSolverType::GMRES}) {
        LinearSolverParams p;
        p.type = type;
        p.tolerance = 1e-11;
        p.max_iterations = 5000;
        p.gmres_restart = 100;
        VecX x;
        const LinearSolveResult r = solve_linear_system(A, b, x, p);
        ASSERT_TRUE(r.success) << r.failure;
        EXPECT_LT(relative_residual(A, x, b), 1e-8) << static_cast<int>(type);
    }
    LinearSolverParams cg;
    cg.type = LinearSolverType::CG;
    VecX x;
    EXPECT_FALSE(solve_linear_system(A, b, x, cg).success);
}

TEST(LinearSolver, GmresSolvesNonsymmetricSystemsWithAnyRestart) {
    std::mt19937 rng(5);
    std::normal_distribution<double> n(0.0, 1.0);
    MatX D = 8.0 * MatX::Identity(60, 60);
    for (int i = 0; i < 60; ++i)
        for (int j = 0; j < 60; ++j)
            if (std::abs(i - j) <= 3 && i != j) D(i, j) = n(rng);
    const SparseMatrix A = D.sparseView();
    const VecX b = VecX::Random(60);
    int previous = 0;
    for (int restart : {60, 10, 3}) {
        LinearSolverParams p;
        p.type = LinearSolverType::GMRES;
        p.tolerance = 1e-10;
        p.gmres_restart = restart;
        p.max_iterations = 5000;
        VecX x;
        const LinearSolveResult r = solve_linear_system(A, b, x, p);
        ASSERT_TRUE(r.success) << r.failure;
        EXPECT_LT(relative_residual(A, x, b), 1e-9);
        EXPECT_GE(r.iterations, previous);  // shorter restarts never converge in fewer steps
        previous = r.iterations;
    }
}

TEST(LinearSolver, SingularSystemFailsWithAFiniteResult) {
    MatX D = MatX::Identity(12, 12);
    D(3, 3) = 0.0;
    const SparseMatrix A = D.sparseView();
    VecX b = VecX::Ones(12);
    LinearSolverParams p;
    p.type = LinearSolverType::LDLT;
    VecX x;
    const LinearSolveResult r = solve_linear_system(A, b, x, p);
    EXPECT_FALSE(r.success);
    EXPECT_TRUE(x.allFinite());
    p.type = LinearSolverType::GMRES;
    const LinearSolveResult g = solve_linear_system(A, b, x, p);
    EXPECT_TRUE(x.allFinite());
    EXPECT_GT(g.relative_residual, 0.1);  // the component along e_3 cannot be matched
}
