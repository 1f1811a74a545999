// The direct solve of a Newton system: a sparse LDLᵀ factorisation over dense blocks
// (supernodal), its columns factorised in parallel over independent subtrees.
//
// A Newton Hessian is a sparse matrix of dense body blocks (12 x 12 for an affine body, more for
// a reduced elastic one): every column of a body has the same pattern. The analysis finds those
// column groups, orders them to reduce fill (AMD on the graph of groups, a twelfth of the
// columns' size), builds the elimination tree of the groups and merges chains whose columns
// share one structure below the diagonal (fundamental supernodes). The numeric factorisation
// then works on dense panels: a supernode gathers its columns of A, subtracts the updates of
// the supernodes below it that reach it (dense products), and factorises its diagonal block
// without pivoting (as a scalar sparse LDLᵀ does; an indefinite matrix factorises unless a
// pivot is zero). Supernodes of disjoint subtrees depend on nothing in common, so subtrees run
// as parallel tasks; the few large supernodes at the top of the tree, which every path waits
// for, split their columns into fixed ranges done in parallel. The triangular solves go over
// the same tree: forward from the leaves (each supernode gathers the updates of those below
// it), backward from the roots.
//
// Deterministic: every supernode sums its updates in the same order (ascending) whatever the
// number of threads or the schedule, so the factor and the solution are the same bit for bit.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "concord/math/types.hpp"
#include "concord/math/uninitialised_allocator.hpp"
#include "concord/solver/sparse_matrix.hpp"

namespace concord {

class BlockLDLT {
  public:
    BlockLDLT();
    ~BlockLDLT();
    BlockLDLT(const BlockLDLT&) = delete;
    BlockLDLT& operator=(const BlockLDLT&) = delete;

    /// Symbolic analysis of A's pattern. A: square, compressed, symmetric pattern with both
    /// triangles stored (values are not read).
    void analyze(const SparseMatrix& A);

    /// Numeric factorisation of A, whose pattern must be the analysed one. False (and no usable
    /// factor) when a pivot is zero or not finite.
    bool factorize(const SparseMatrix& A);

    /// x = A⁻¹ b with the last successful factorisation.
    void solve(const VecX& b, VecX& x) const;

    int num_groups() const { return num_groups_; }  ///< column groups found
    int num_supernodes() const { return static_cast<int>(width_.size()); }
    std::size_t factor_entries() const { return values_.size(); }  ///< stored entries of L
    /// Negative pivots of the last factorisation (0 for a positive definite matrix).
    int negative_pivots() const;

  private:
    struct Scratch;
    struct Numeric;  ///< what one factorisation's tasks share (A, per-thread scratch, failure)
    void factor_subtree(int s);
    bool factor_supernode(int s, Scratch& scratch);
    void forward_subtree(int s, VecX& y) const;
    void forward_supernode(int t, VecX& y) const;
    void backward_subtree(int s, VecX& y) const;
    void backward_supernode(int t, VecX& y) const;

    Eigen::Index n_ = 0;
    int num_groups_ = 0;
    std::vector<int> perm_;  ///< position in the factor -> column of A

    // Supernodes, numbered in a postorder of their tree: supernode s holds the factor's columns
    // [first_[s], first_[s] + width_[s]) and its rows below them, rows_[row_ptr_[s] ..
    // row_ptr_[s + 1]) (ascending).
    std::vector<int> first_, width_;
    std::vector<std::size_t> row_ptr_;
    std::vector<int> rows_;
    std::vector<std::size_t> panel_;     ///< offset of supernode s's panel in values_
    std::vector<int> first_descendant_;  ///< its subtree is [first_descendant_[s], s]
    std::vector<std::vector<int>> children_;
    std::vector<int> roots_;
    std::vector<double> own_work_;          ///< flop estimate of the supernode itself
    std::vector<double> subtree_work_;      ///< and of its subtree
    std::vector<std::size_t> subtree_entries_;  ///< entries of L in its subtree (solves)
    std::vector<std::size_t> updater_ptr_;  ///< supernodes whose rows reach s:
    std::vector<int> updaters_;             ///< updaters_[updater_ptr_[s] .. [s + 1])
    /// per entry of A: its place in values_, -1 above
    std::vector<std::ptrdiff_t, UninitialisedAllocator<std::ptrdiff_t>> gather_;

    // Numeric factor: per supernode a column-major panel of (width + rows below) x width, its
    // diagonal block the unit lower triangle of L (the upper triangle is scratch), and D.
    std::vector<double, UninitialisedAllocator<double>> values_;
    std::vector<double> d_;
    std::unique_ptr<Numeric> numeric_;
};

}  // namespace concord
