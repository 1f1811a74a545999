// Parameters of the linear solve inside every Newton iteration (scene key "solver.linear_solver").
// docs/solver.md says when to use which.
#pragma once

namespace concord {

enum class LinearSolverType {
    Auto,    ///< LDLT up to LinearSolverParams::direct_max_dofs unknowns, CG above (default)
    LDLT,    ///< sparse direct factorisation (BlockLDLT: supernodal over body blocks, parallel)
    CG,      ///< preconditioned conjugate gradients (needs SPD: stops at non-positive curvature)
    MINRES,  ///< preconditioned MINRES (symmetric, possibly indefinite)
    GMRES,   ///< right-preconditioned restarted GMRES(m) (any nonsingular matrix)
};

enum class PreconditionerType {
    None,
    Jacobi,              ///< inverse of |diagonal|
    PerBody,             ///< inverse of each body's 12x12 diagonal block (default)
    IncompleteCholesky,  ///< zero fill-in incomplete Cholesky with diagonal shift (Eigen)
};

struct LinearSolverParams {
    LinearSolverType type = LinearSolverType::Auto;
    /// Auto uses LDLT up to this many unknowns (5000 bodies) and CG above, where the
    /// factorisation's fill-in and memory grow faster than CG's cost (docs/solver.md).
    int direct_max_dofs = 60000;
    /// Iterative solvers stop when ||A x - b|| / ||b|| <= tolerance (MINRES: in the
    /// preconditioner's norm). Ignored by LDLT.
    double tolerance = 1e-8;
    int max_iterations = 1000;  ///< iterative solvers; the partial solution is still used
    PreconditionerType preconditioner = PreconditionerType::PerBody;  ///< ignored by LDLT
    int gmres_restart = 30;  ///< Krylov basis size m of GMRES(m)
    int block_size = 12;     ///< block of the per-body preconditioner (one affine body)

    bool operator==(const LinearSolverParams&) const = default;
};

}  // namespace concord
