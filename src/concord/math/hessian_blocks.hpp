// A Hessian as the energies write it: dense blocks at (row, col) of the full DoF vector.
//
// A contact pair adds four 12 x 12 body blocks, a body its 9 x 9 orthogonality block; a dense
// pile writes millions of entries per Newton iteration. Kept as blocks (one header and a
// column-major run of values each), they cost a tenth of the memory of one (row, col, value)
// triplet per entry, and the assembler (solver/block_assembler.hpp) adds a whole block into its
// slot at once instead of looking each entry up.
#pragma once

#include <tbb/parallel_for.h>

#include <Eigen/Core>
#include <Eigen/SparseCore>
#include <algorithm>
#include <cstddef>
#include <cstring>
#include <memory>
#include <new>
#include <span>
#include <utility>
#include <vector>

#include "concord/math/uninitialised_allocator.hpp"

namespace concord {

class HessianBlocks {
  public:
    /// (No default member values: appending many blocks at once leaves the new ones unwritten
    /// until they are copied in parallel, append_all.)
    struct Block {
        int row, col;        ///< position of the block's first entry
        int rows, cols;      ///< its size
        std::size_t offset;  ///< its values, column-major, at values()[offset]
    };

    /// Adds the dense block B at (row0, col0). Every entry is kept, zeros included: a block's
    /// entries are stored in the assembled matrix whatever their values.
    template <typename Derived>
    void add(int row0, int col0, const Eigen::MatrixBase<Derived>& B) {
        const int rows = static_cast<int>(B.rows()), cols = static_cast<int>(B.cols());
        if (rows == 0 || cols == 0) return;
        const std::size_t offset = values_.size();
        blocks_.push_back({row0, col0, rows, cols, offset});
        values_.resize(offset + static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols));
        Eigen::Map<Eigen::MatrixXd>(values_.data() + offset, rows, cols) = B;
    }
    /// Adds B at (row0, col0) into one of the last kSumBack blocks that sits at the same place
    /// with the same size, else as a new block. A contact pair's four body blocks are followed
    /// by the next pair's, often of the same two bodies: summed as they come, half the blocks
    /// of a dense pile never reach the assembler. The matrix is the same up to the order of
    /// its sums (still one order for a given sequence of adds). For a HessianBlocks that one
    /// energy fills alone (scale_from would otherwise scale another energy's share).
    template <typename Derived>
    void add_summed(int row0, int col0, const Eigen::MatrixBase<Derived>& B) {
        const int rows = static_cast<int>(B.rows()), cols = static_cast<int>(B.cols());
        if (rows == 0 || cols == 0) return;
        const std::size_t last = blocks_.size() > kSumBack ? blocks_.size() - kSumBack : 0;
        for (std::size_t k = blocks_.size(); k > last; --k) {
            const Block& b = blocks_[k - 1];
            if (b.row == row0 && b.col == col0 && b.rows == rows && b.cols == cols) {
                Eigen::Map<Eigen::MatrixXd>(values_.data() + b.offset, rows, cols) += B;
                return;
            }
        }
        add(row0, col0, B);
    }
    /// How far back add_summed looks: a pair's four body blocks.
    static constexpr std::size_t kSumBack = 4;
    /// A single entry (a 1 x 1 block).
    void add(int row, int col, double value) {
        blocks_.push_back({row, col, 1, 1, values_.size()});
        values_.push_back(value);
    }

    /// Appends every block of each part, parts in order, the parts copied in parallel.
    void append_all(const std::vector<HessianBlocks>& parts) {
        std::vector<std::size_t> block_at(parts.size() + 1, blocks_.size());
        std::vector<std::size_t> value_at(parts.size() + 1, values_.size());
        for (std::size_t p = 0; p < parts.size(); ++p) {
            block_at[p + 1] = block_at[p] + parts[p].blocks_.size();
            value_at[p + 1] = value_at[p] + parts[p].values_.size();
        }
        // Grown geometrically: a system's Hessian is rebuilt every
        // Newton iteration into the same buffers, a little larger each time in a filling pile,
        // and buffers grown to the exact size each time left the allocator 80 MB of freed ones
        // on the 512-sphere pile.
        auto grow = [](auto& v, std::size_t n) {
            if (n > v.capacity()) v.reserve(std::max(n, 2 * v.capacity()));
            v.resize(n);
        };
        grow(blocks_, block_at.back());
        grow(values_, value_at.back());
        tbb::parallel_for(std::size_t(0), parts.size(), [&](std::size_t p) {
            const HessianBlocks& part = parts[p];
            for (std::size_t k = 0; k < part.blocks_.size(); ++k) {
                Block b = part.blocks_[k];
                b.offset += value_at[p];
                blocks_[block_at[p] + k] = b;
            }
            if (!part.values_.empty())
                std::memcpy(values_.data() + value_at[p], part.values_.data(),
                            part.values_.size() * sizeof(double));
        });
    }

    /// Multiplies the blocks from index `first` on by s (an energy's own scaling, e.g. h^2).
    void scale_from(std::size_t first, double s) {
        if (first >= blocks_.size()) return;
        for (std::size_t k = blocks_[first].offset; k < values_.size(); ++k) values_[k] *= s;
    }

    void clear() {
        blocks_.clear();
        values_.clear();
    }
    std::size_t size() const { return blocks_.size(); }
    bool empty() const { return blocks_.empty(); }
    std::span<const Block> blocks() const { return blocks_; }
    const double* values(const Block& b) const { return values_.data() + b.offset; }
    Eigen::Map<const Eigen::MatrixXd> matrix(const Block& b) const {
        return {values(b), b.rows, b.cols};
    }

    /// Every entry as a triplet, block by block, each column-major (tests, small problems).
    std::vector<Eigen::Triplet<double>> triplets() const {
        std::vector<Eigen::Triplet<double>> t;
        t.reserve(values_.size());
        for (const Block& b : blocks_)
            for (int j = 0; j < b.cols; ++j)
                for (int i = 0; i < b.rows; ++i)
                    t.emplace_back(b.row + i, b.col + j,
                                   values_[b.offset + static_cast<std::size_t>(j * b.rows + i)]);
        return t;
    }
    /// The summed n x n sparse matrix.
    Eigen::SparseMatrix<double> sparse(Eigen::Index n) const {
        const auto t = triplets();
        Eigen::SparseMatrix<double> H(n, n);
        H.setFromTriplets(t.begin(), t.end());
        return H;
    }

  private:
    std::vector<Block, UninitialisedAllocator<Block>> blocks_;
    std::vector<double, UninitialisedAllocator<double>> values_;
};

}  // namespace concord
