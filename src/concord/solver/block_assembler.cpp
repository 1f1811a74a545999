#include "concord/solver/block_assembler.hpp"

#include <algorithm>
#include <utility>

namespace concord {

BlockAssembler::BlockAssembler(std::vector<int> free_index, int num_free, int block)
    : index_(std::move(free_index)), num_free_(num_free), block_(std::max(1, block)) {
    num_block_cols_ = (static_cast<std::int64_t>(index_.size()) + block_ - 1) / block_;
}

int BlockAssembler::slot_of(std::int64_t block_row, std::int64_t block_col) {
    // Keys sort column-major, which is the order the compressed columns are written in.
    const std::int64_t key = block_col * num_block_cols_ + block_row;
    const auto [it, inserted] = slot_.try_emplace(key, static_cast<int>(keys_.size()));
    if (inserted) {
        keys_.push_back(key);
        const std::size_t size = keys_.size() * static_cast<std::size_t>(block_ * block_);
        values_.resize(size);
        touched_.resize(size, 0);
    }
    return it->second;
}

void BlockAssembler::assemble(const HessianBlocks& blocks, SparseMatrix& H) {
    slot_.clear();
    keys_.clear();
    values_.clear();
    touched_.clear();
    const std::int64_t b = block_;
    const std::size_t bb = static_cast<std::size_t>(b * b);
    for (const HessianBlocks::Block& blk : blocks.blocks()) {
        const double* v = blocks.values(blk);
        if (blk.rows == b && blk.cols == b && blk.row % b == 0 && blk.col % b == 0) {
            // Aligned: the block is its slot's layout (column-major), added at once.
            const std::size_t base = static_cast<std::size_t>(slot_of(blk.row / b, blk.col / b)) * bb;
            double* out = values_.data() + base;
            std::uint8_t* seen = touched_.data() + base;
            // An entry's first addend is stored as is (not added to 0), as setFromTriplets does.
            for (std::size_t k = 0; k < bb; ++k) {
                out[k] = seen[k] ? out[k] + v[k] : v[k];
                seen[k] = 1;
            }
            continue;
        }
        // Anywhere else (modal blocks, joints' ranges, single entries): entry by entry, the
        // slot looked up once per run of entries in the same slot.
        std::int64_t last_row = -1, last_col = -1;
        std::size_t base = 0;
        for (int j = 0; j < blk.cols; ++j)
            for (int i = 0; i < blk.rows; ++i) {
                const std::int64_t r = blk.row + i, c = blk.col + j;
                const std::int64_t br = r / b, bc = c / b;
                if (br != last_row || bc != last_col) {
                    last_row = br;
                    last_col = bc;
                    base = static_cast<std::size_t>(slot_of(br, bc)) * bb;
                }
                const std::size_t k = base + static_cast<std::size_t>((c - bc * b) * b + (r - br * b));
                const double x = v[static_cast<std::size_t>(j * blk.rows + i)];
                values_[k] = touched_[k] ? values_[k] + x : x;
                touched_[k] = 1;
            }
    }

    order_.resize(keys_.size());
    for (std::size_t s = 0; s < order_.size(); ++s) order_[s] = static_cast<int>(s);
    std::sort(order_.begin(), order_.end(), [&](int x, int y) {
        return keys_[static_cast<std::size_t>(x)] < keys_[static_cast<std::size_t>(y)];
    });

    // Columns in increasing order, each from its block column's slots (block rows increasing),
    // rows increasing within a block: the compressed layout with sorted inner indices.
    outer_.assign(static_cast<std::size_t>(num_free_) + 1, 0);
    inner_.clear();
    data_.clear();
    const std::int64_t n = static_cast<std::int64_t>(index_.size());
    std::size_t first = 0;
    while (first < order_.size()) {
        const std::int64_t bc = keys_[static_cast<std::size_t>(order_[first])] / num_block_cols_;
        std::size_t last = first;
        while (last < order_.size() &&
               keys_[static_cast<std::size_t>(order_[last])] / num_block_cols_ == bc)
            ++last;
        for (std::int64_t j = 0; j < b && bc * b + j < n; ++j) {
            const int col = index_[static_cast<std::size_t>(bc * b + j)];
            if (col < 0) continue;
            for (std::size_t s = first; s < last; ++s) {
                const int slot = order_[s];
                const std::int64_t br = keys_[static_cast<std::size_t>(slot)] % num_block_cols_;
                const std::size_t base_s =
                    static_cast<std::size_t>(slot) * static_cast<std::size_t>(b * b) +
                    static_cast<std::size_t>(j * b);
                for (std::int64_t i = 0; i < b && br * b + i < n; ++i) {
                    if (!touched_[base_s + static_cast<std::size_t>(i)]) continue;
                    const int row = index_[static_cast<std::size_t>(br * b + i)];
                    if (row < 0) continue;
                    inner_.push_back(row);
                    data_.push_back(values_[base_s + static_cast<std::size_t>(i)]);
                }
            }
            outer_[static_cast<std::size_t>(col) + 1] = static_cast<int>(inner_.size());
        }
        first = last;
    }
    // Columns without entries repeat the end of the previous one.
    for (std::size_t c = 1; c < outer_.size(); ++c) outer_[c] = std::max(outer_[c], outer_[c - 1]);

    H = Eigen::Map<const SparseMatrix>(num_free_, num_free_, static_cast<Eigen::Index>(inner_.size()),
                                       outer_.data(), inner_.data(), data_.data());
}

}  // namespace concord
