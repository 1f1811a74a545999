// Assembly of a Newton Hessian from the energies' dense blocks into the compressed matrix over
// the unknowns.
//
// The energies write their Hessians as dense body blocks (12 x 12 for an affine body, four per
// contact pair: HessianBlocks), so one system holds tens of thousands of blocks that sum into
// a few thousand. Eigen's setFromTriplets would sort every entry through a transposed copy; this
// assembler sorts the blocks instead, by the slot (the aligned block of the grid) each one adds
// to, then sums every slot and writes every block column of the compressed matrix in parallel.
//
// The result is the matrix setFromTriplets would build from every block entry, bit for bit: the
// same stored entries (exactly those some block holds, also when they are or sum to zero) and the
// same values (each entry's addends summed in block order), so the assembly is deterministic
// and independent of the thread count.
#pragma once

#include <Eigen/SparseCore>
#include <cstdint>
#include <vector>

#include "concord/math/hessian_blocks.hpp"
#include "concord/math/uninitialised_allocator.hpp"
#include "concord/solver/sparse_matrix.hpp"

namespace concord {

class BlockAssembler {
  public:
    /// `free_index`: full row/column -> unknown (-1 for a fixed one), increasing over the free
    /// ones. `block`: edge of the dense blocks the energies write (any value is correct; a
    /// mismatch only makes it slower).
    BlockAssembler(std::vector<int> free_index, int num_free, int block);

    /// H = the blocks (over the full rows/columns) restricted to the unknowns, summed.
    void assemble(const HessianBlocks& blocks, SparseMatrix& H);

  private:
    struct Ref {
        std::int64_t key;  ///< the slot: block column * block rows + block row (column-major)
        int block;         ///< index of the block adding to it
    };

    std::vector<int> index_;
    int num_free_ = 0;
    int block_ = 12;
    std::int64_t num_block_rows_ = 0;
    std::vector<std::size_t>
        ref_begin_;          ///< per block: its first Ref (a block off the grid has several)
    std::vector<Ref, UninitialisedAllocator<Ref>> refs_;  ///< sorted by (key, block)
    std::vector<std::size_t> slot_begin_;    ///< per slot: its first Ref
    std::vector<std::size_t> column_begin_;  ///< per block column holding slots: its first slot
    std::vector<double, UninitialisedAllocator<double>>
        values_;  ///< per slot: block_ x block_, column-major
    std::vector<std::uint8_t, UninitialisedAllocator<std::uint8_t>>
        touched_;                            ///< per slot entry: some block holds it
    std::vector<std::uint8_t> full_;         ///< per slot: every entry held (touched_ not kept)
    std::vector<int> count_;                 ///< per unknown column: its stored entries
};

}  // namespace concord
