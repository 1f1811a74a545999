// Assembly of a Newton Hessian from the energies' dense blocks into the compressed matrix over
// the unknowns.
//
// The energies write their Hessians as dense body blocks (12 x 12 for an affine body, four per
// contact pair: HessianBlocks), so one system holds a few hundred thousand blocks that sum into
// a few thousand. Eigen's setFromTriplets would sort every entry through a transposed copy; this
// accumulator adds each aligned block into its slot at once (one lookup per block; others entry
// by entry) and writes the compressed columns from the slots in order.
//
// The result is the matrix setFromTriplets would build from every block entry, bit for bit: the
// same stored entries (exactly those some block holds, also when they are or sum to zero) and the
// same values (each entry's addends summed in block order), so the assembly is deterministic
// and independent of how the slots are found.
#pragma once

#include <Eigen/SparseCore>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "concord/math/hessian_blocks.hpp"
#include "concord/solver/sparse_matrix.hpp"

namespace concord {

class BlockAssembler {
  public:
    /// `free_index`: full row/column -> unknown (-1 for a fixed one), increasing over the free
    /// ones. `block`: edge of the dense blocks the triplets come in (any value is correct; a
    /// mismatch only makes it slower).
    BlockAssembler(std::vector<int> free_index, int num_free, int block);

    /// H = the blocks (over the full rows/columns) restricted to the unknowns, summed.
    void assemble(const HessianBlocks& blocks, SparseMatrix& H);

  private:
    int slot_of(std::int64_t block_row, std::int64_t block_col);

    std::vector<int> index_;
    int num_free_ = 0;
    int block_ = 12;
    std::int64_t num_block_cols_ = 0;
    std::unordered_map<std::int64_t, int> slot_;  ///< block key -> slot, cleared per assembly
    std::vector<std::int64_t> keys_;              ///< per slot: its key (column-major order)
    std::vector<double> values_;                  ///< per slot: block_ x block_, column-major
    std::vector<std::uint8_t> touched_;           ///< per slot entry: some block holds it
    std::vector<int> order_;                      ///< slots sorted by (block column, block row)
    std::vector<int> outer_, inner_;
    std::vector<double> data_;
};

}  // namespace concord
