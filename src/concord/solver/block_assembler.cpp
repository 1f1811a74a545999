#include "concord/solver/block_assembler.hpp"

#include <tbb/parallel_for.h>
#include <tbb/parallel_sort.h>

#include <algorithm>
#include <cstring>
#include <utility>

namespace concord {

BlockAssembler::BlockAssembler(std::vector<int> free_index, int num_free, int block)
    : index_(std::move(free_index)), num_free_(num_free), block_(std::max(1, block)) {
    num_block_rows_ = (static_cast<std::int64_t>(index_.size()) + block_ - 1) / block_;
}

void BlockAssembler::assemble(const HessianBlocks& blocks, SparseMatrix& H) {
    const std::int64_t b = block_;
    const std::size_t bb = static_cast<std::size_t>(b * b);
    const std::span<const HessianBlocks::Block> list = blocks.blocks();
    const std::size_t num_blocks = list.size();
    auto aligned = [b](const HessianBlocks::Block& blk) {
        return blk.rows == b && blk.cols == b && blk.row % b == 0 && blk.col % b == 0;
    };

    // 1. Which slots each block adds to: one for an aligned block, every grid block it
    //    overlaps for any other (modal blocks, joints' ranges, single entries).
    ref_begin_.assign(num_blocks + 1, 0);
    tbb::parallel_for(std::size_t(0), num_blocks, [&](std::size_t k) {
        const HessianBlocks::Block& blk = list[k];
        const std::int64_t rows = (blk.row + blk.rows - 1) / b - blk.row / b + 1;
        const std::int64_t cols = (blk.col + blk.cols - 1) / b - blk.col / b + 1;
        ref_begin_[k + 1] = static_cast<std::size_t>(rows * cols);
    });
    for (std::size_t k = 0; k < num_blocks; ++k) ref_begin_[k + 1] += ref_begin_[k];
    refs_.clear();
    refs_.resize(ref_begin_[num_blocks]);
    tbb::parallel_for(std::size_t(0), num_blocks, [&](std::size_t k) {
        const HessianBlocks::Block& blk = list[k];
        std::size_t out = ref_begin_[k];
        for (std::int64_t bc = blk.col / b; bc <= (blk.col + blk.cols - 1) / b; ++bc)
            for (std::int64_t br = blk.row / b; br <= (blk.row + blk.rows - 1) / b; ++br)
                refs_[out++] = {bc * num_block_rows_ + br, static_cast<int>(k)};
    });
    // Column-major slot order; within a slot, block order (the order the addends are summed).
    tbb::parallel_sort(refs_.begin(), refs_.end(), [](const Ref& x, const Ref& y) {
        return x.key < y.key || (x.key == y.key && x.block < y.block);
    });
    slot_begin_.clear();
    column_begin_.clear();
    for (std::size_t r = 0; r < refs_.size(); ++r) {
        if (r > 0 && refs_[r].key == refs_[r - 1].key) continue;
        if (slot_begin_.empty() ||
            refs_[r].key / num_block_rows_ != refs_[slot_begin_.back()].key / num_block_rows_)
            column_begin_.push_back(slot_begin_.size());
        slot_begin_.push_back(r);
    }
    const std::size_t num_slots = slot_begin_.size();
    column_begin_.push_back(num_slots);
    slot_begin_.push_back(refs_.size());

    // 2. Every slot's sum, slots in parallel. An entry's first addend is stored as is (not
    //    added to 0), as setFromTriplets does; touched_ is valid only where full_ is not set.
    // (Every slot's values are written below, and a slot's flags where it reads them: the
    // buffers grow without copying or clearing their old contents.)
    values_.clear();
    values_.resize(num_slots * bb);
    touched_.clear();
    touched_.resize(num_slots * bb);
    full_.resize(num_slots);
    tbb::parallel_for(std::size_t(0), num_slots, [&](std::size_t s) {
        double* out = values_.data() + s * bb;
        std::uint8_t* seen = touched_.data() + s * bb;
        // Until an entry-by-entry block arrives, a slot is either untouched or full (every
        // entry seen): aligned blocks are then copied or added whole, without per-entry flags.
        enum { Empty, Full, Partial } state = Empty;
        const std::int64_t key = refs_[slot_begin_[s]].key;
        const std::int64_t r0 = (key % num_block_rows_) * b, c0 = (key / num_block_rows_) * b;
        for (std::size_t r = slot_begin_[s]; r < slot_begin_[s + 1]; ++r) {
            const HessianBlocks::Block& blk = list[static_cast<std::size_t>(refs_[r].block)];
            const double* v = blocks.values(blk);
            if (aligned(blk)) {  // the slot's layout (column-major)
                if (state == Empty) {
                    std::memcpy(out, v, bb * sizeof(double));
                } else if (state == Full) {
                    for (std::size_t k = 0; k < bb; ++k) out[k] += v[k];
                } else {
                    for (std::size_t k = 0; k < bb; ++k) out[k] = seen[k] ? out[k] + v[k] : v[k];
                }
                state = Full;
                continue;
            }
            if (state == Empty) std::memset(seen, 0, bb);
            if (state == Full) std::memset(seen, 1, bb);
            state = Partial;
            const std::int64_t i0 = std::max<std::int64_t>(blk.row, r0);
            const std::int64_t i1 = std::min<std::int64_t>(blk.row + blk.rows, r0 + b);
            const std::int64_t j0 = std::max<std::int64_t>(blk.col, c0);
            const std::int64_t j1 = std::min<std::int64_t>(blk.col + blk.cols, c0 + b);
            for (std::int64_t c = j0; c < j1; ++c)
                for (std::int64_t i = i0; i < i1; ++i) {
                    const std::size_t k = static_cast<std::size_t>((c - c0) * b + (i - r0));
                    const double x =
                        v[static_cast<std::size_t>((c - blk.col) * blk.rows + (i - blk.row))];
                    out[k] = seen[k] ? out[k] + x : x;
                    seen[k] = 1;
                }
        }
        full_[s] = state == Full;
    });

    // 3. The compressed columns: each block column's columns from its slots (block rows
    //    increasing), rows increasing within a slot; counted, then written, in parallel.
    const std::int64_t n = static_cast<std::int64_t>(index_.size());
    const std::size_t num_columns = column_begin_.size() - 1;
    auto for_each_column = [&](auto&& fn) {  // fn(column, first slot, last slot, block column)
        tbb::parallel_for(std::size_t(0), num_columns, [&](std::size_t g) {
            const std::size_t first = column_begin_[g], last = column_begin_[g + 1];
            const std::int64_t bc = refs_[slot_begin_[first]].key / num_block_rows_;
            for (std::int64_t j = 0; j < b && bc * b + j < n; ++j) {
                const int col = index_[static_cast<std::size_t>(bc * b + j)];
                if (col >= 0) fn(col, first, last, j);
            }
        });
    };
    auto rows_of = [&](std::size_t s, std::int64_t j, auto&& emit) {
        const std::int64_t br = refs_[slot_begin_[s]].key % num_block_rows_;
        const std::size_t base = s * bb + static_cast<std::size_t>(j * b);
        const bool full = full_[s];
        for (std::int64_t i = 0; i < b && br * b + i < n; ++i) {
            if (!full && !touched_[base + static_cast<std::size_t>(i)]) continue;
            const int row = index_[static_cast<std::size_t>(br * b + i)];
            if (row >= 0) emit(row, values_[base + static_cast<std::size_t>(i)]);
        }
    };
    count_.assign(static_cast<std::size_t>(num_free_), 0);
    for_each_column([&](int col, std::size_t first, std::size_t last, std::int64_t j) {
        int count = 0;
        for (std::size_t s = first; s < last; ++s) rows_of(s, j, [&](int, double) { ++count; });
        count_[static_cast<std::size_t>(col)] = count;
    });
    H.resize(num_free_, num_free_);  // compressed, empty
    int* outer = H.outerIndexPtr();
    outer[0] = 0;
    for (int c = 0; c < num_free_; ++c)
        outer[c + 1] = outer[c] + count_[static_cast<std::size_t>(c)];
    H.resizeNonZeros(outer[num_free_]);
    int* inner = H.innerIndexPtr();
    double* data = H.valuePtr();
    for_each_column([&](int col, std::size_t first, std::size_t last, std::int64_t j) {
        int at = outer[col];
        for (std::size_t s = first; s < last; ++s)
            rows_of(s, j, [&](int row, double x) {
                inner[at] = row;
                data[at] = x;
                ++at;
            });
    });
}

}  // namespace concord
