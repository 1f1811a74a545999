// Assembly of a Newton Hessian from triplets into the compressed matrix over the unknowns.
//
// The energies emit their Hessians as triplets of dense body blocks (12 x 12 for an affine
// body, several per contact pair), so one system holds millions of triplets of a few thousand
// blocks. Eigen's setFromTriplets sorts every triplet through a transposed copy; this
// accumulator instead sums each triplet into its dense block (found once per run of triplets of
// the same block) and writes the compressed columns from the blocks in order.
//
// The result is the matrix setFromTriplets would build, bit for bit: the same stored entries
// (exactly those some triplet touched, also when they sum to zero) and the same values (each
// entry's triplets summed in triplet order, starting from the first one), so the linear
// solver's ordering and every rounding stay as they were.
#pragma once

#include <Eigen/SparseCore>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "concord/solver/sparse_matrix.hpp"

namespace concord {

class BlockAssembler {
  public:
    /// `free_index`: full row/column -> unknown (-1 for a fixed one), increasing over the free
    /// ones. `block`: edge of the dense blocks the triplets come in (any value is correct; a
    /// mismatch only makes it slower).
    BlockAssembler(std::vector<int> free_index, int num_free, int block);

    /// H = the triplets (over the full rows/columns) restricted to the unknowns, summed.
    void assemble(const std::vector<Eigen::Triplet<double>>& triplets, SparseMatrix& H);

  private:
    int slot_of(std::int64_t block_row, std::int64_t block_col);

    std::vector<int> index_;
    int num_free_ = 0;
    int block_ = 12;
    std::int64_t num_block_cols_ = 0;
    std::unordered_map<std::int64_t, int> slot_;  ///< block key -> slot, cleared per assembly
    std::vector<std::int64_t> keys_;              ///< per slot: its key (column-major order)
    std::vector<double> values_;                  ///< per slot: block_ x block_, column-major
    std::vector<std::uint8_t> touched_;           ///< per slot entry: some triplet wrote it
    std::vector<int> order_;                      ///< slots sorted by (block column, block row)
    std::vector<int> outer_, inner_;
    std::vector<double> data_;
};

}  // namespace concord
