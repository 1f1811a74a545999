#include "concord/solver/block_ldlt.hpp"

#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>
#include <tbb/task_group.h>

#include <Eigen/OrderingMethods>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <span>
#include <stdexcept>

namespace concord {
namespace {

// A subtree estimated below this many flops is factorised by one task, in order: a task costs
// about a microsecond, a 12 x 12 supernode with a few updates a few thousand flops.
constexpr double kSerialSubtreeWork = 2e5;
// Columns of a diagonal block factorised one by one before their trailing update (one product).
constexpr int kColumnBlock = 32;
// A supernode estimated at this many flops of its own (updates received and its dense
// factorisation) splits its columns into ranges of kSplitColumns done in parallel.
constexpr double kSplitSupernodeWork = 1e6;
constexpr int kSplitColumns = 24;

// A subtree whose factor holds fewer entries than this is solved by one task, in order (a
// triangular solve reads each entry once).
constexpr std::size_t kSerialSolveEntries = 30000;

using Panel = Eigen::Map<MatX>;
using ConstPanel = Eigen::Map<const MatX>;

}  // namespace

struct BlockLDLT::Scratch {
    std::vector<int> position;  ///< row of the factor -> row of the panel being factorised
    MatX w, c;                  ///< an update's L D and its product
    VecX v;                     ///< a triangular solve's update
};

struct BlockLDLT::Numeric {
    const SparseMatrix* a = nullptr;
    tbb::enumerable_thread_specific<Scratch> scratch;
    std::atomic<bool> failed{false};
};

BlockLDLT::BlockLDLT() : numeric_(std::make_unique<Numeric>()) {}
BlockLDLT::~BlockLDLT() = default;

void BlockLDLT::analyze(const SparseMatrix& A) {
    if (A.rows() != A.cols() || !A.isCompressed())
        throw std::invalid_argument("BlockLDLT: the matrix must be square and compressed");
    n_ = A.cols();
    const int n = static_cast<int>(n_);
    const int* outer = A.outerIndexPtr();
    const int* inner = A.innerIndexPtr();

    // Column groups: runs of consecutive columns with the same rows (a body's columns).
    std::vector<int> group_of(static_cast<std::size_t>(n)), group_first;
    std::vector<std::uint8_t> same_as_previous(static_cast<std::size_t>(n));
    tbb::parallel_for(tbb::blocked_range<int>(0, n, 256), [&](const tbb::blocked_range<int>& r) {
        for (int c = r.begin(); c < r.end(); ++c)
            same_as_previous[c] =
                c > 0 && outer[c + 1] - outer[c] == outer[c] - outer[c - 1] &&
                std::equal(inner + outer[c], inner + outer[c + 1], inner + outer[c - 1]);
    });
    for (int c = 0; c < n; ++c) {
        if (!same_as_previous[c]) group_first.push_back(c);
        group_of[static_cast<std::size_t>(c)] = static_cast<int>(group_first.size()) - 1;
    }
    const int ng = static_cast<int>(group_first.size());
    group_first.push_back(n);
    num_groups_ = ng;
    auto group_width = [&](int g) { return group_first[g + 1] - group_first[g]; };

    // The graph of the groups, without loops: each group's neighbours from its first column
    // (ascending, as A's rows are), then made symmetric should A's pattern not be.
    std::vector<int> adj_ptr(static_cast<std::size_t>(ng) + 1, 0), adj;
    for (int g = 0; g < ng; ++g) {
        const int c = group_first[g];
        for (int k = outer[c]; k < outer[c + 1]; ++k) {
            const int h = group_of[static_cast<std::size_t>(inner[k])];
            if (h != g && (adj.size() == static_cast<std::size_t>(adj_ptr[g]) || adj.back() != h))
                adj.push_back(h);
        }
        adj_ptr[g + 1] = static_cast<int>(adj.size());
    }
    {
        std::vector<int> t_ptr(static_cast<std::size_t>(ng) + 1, 0), t(adj.size());
        for (int h : adj) ++t_ptr[h + 1];
        for (int g = 0; g < ng; ++g) t_ptr[g + 1] += t_ptr[g];
        std::vector<int> fill(t_ptr.begin(), t_ptr.end() - 1);
        for (int g = 0; g < ng; ++g)
            for (int k = adj_ptr[g]; k < adj_ptr[g + 1]; ++k) t[fill[adj[k]]++] = g;
        if (t_ptr != adj_ptr || t != adj) {  // not symmetric: the union of both
            std::vector<int> u_ptr(static_cast<std::size_t>(ng) + 1, 0), u;
            for (int g = 0; g < ng; ++g) {
                std::set_union(adj.begin() + adj_ptr[g], adj.begin() + adj_ptr[g + 1],
                               t.begin() + t_ptr[g], t.begin() + t_ptr[g + 1],
                               std::back_inserter(u));
                u_ptr[g + 1] = static_cast<int>(u.size());
            }
            adj_ptr.swap(u_ptr);
            adj.swap(u);
        }
    }
    auto neighbours = [&](int g) {
        return std::span<const int>(adj.data() + adj_ptr[g], adj.data() + adj_ptr[g + 1]);
    };

    // Fill-reducing order of the groups (AMD). indices()[k] is the group eliminated k-th.
    std::vector<int> order(static_cast<std::size_t>(ng));
    {
        std::vector<Eigen::Triplet<double>> t;
        for (int g = 0; g < ng; ++g) {
            t.emplace_back(g, g, 1.0);
            for (int h : neighbours(g)) t.emplace_back(h, g, 1.0);
        }
        SparseMatrix graph(ng, ng);
        graph.setFromTriplets(t.begin(), t.end());
        Eigen::PermutationMatrix<Eigen::Dynamic, Eigen::Dynamic, int> p;
        Eigen::AMDOrdering<int>()(graph, p);
        for (int k = 0; k < ng; ++k) order[k] = p.indices()[k];
    }
    std::vector<int> at(static_cast<std::size_t>(ng));
    for (int k = 0; k < ng; ++k) at[order[k]] = k;

    // Elimination tree in that order (Liu, with path compression).
    std::vector<int> parent(static_cast<std::size_t>(ng), -1),
        ancestor(static_cast<std::size_t>(ng), -1);
    for (int j = 0; j < ng; ++j)
        for (int h : neighbours(order[j]))
            for (int i = at[h], next; i != -1 && i < j; i = next) {
                next = ancestor[i];
                ancestor[i] = j;
                if (next == -1) parent[i] = j;
            }

    // Renumber in a postorder (children ascending): same fill, and every subtree is a
    // contiguous range ending at its root.
    std::vector<std::vector<int>> kids(static_cast<std::size_t>(ng));
    std::vector<int> tops;
    for (int j = 0; j < ng; ++j) (parent[j] == -1 ? tops : kids[parent[j]]).push_back(j);
    std::vector<int> post;
    post.reserve(static_cast<std::size_t>(ng));
    {
        std::vector<std::pair<int, std::size_t>> stack;
        for (int r : tops) {
            stack.emplace_back(r, 0);
            while (!stack.empty()) {
                auto& [node, next] = stack.back();
                if (next < kids[node].size()) {
                    const int c = kids[node][next++];
                    stack.emplace_back(c, 0);
                } else {
                    post.push_back(node);
                    stack.pop_back();
                }
            }
        }
    }
    std::vector<int> renum(static_cast<std::size_t>(ng));
    for (int k = 0; k < ng; ++k) renum[post[k]] = k;
    std::vector<int> group(static_cast<std::size_t>(ng)), gparent(static_cast<std::size_t>(ng), -1);
    std::vector<std::vector<int>> gkids(static_cast<std::size_t>(ng));
    for (int k = 0; k < ng; ++k) {
        group[k] = order[post[k]];
        at[group[k]] = k;
        if (parent[post[k]] != -1) gparent[k] = renum[parent[post[k]]];
    }
    for (int k = 0; k < ng; ++k)
        if (gparent[k] != -1) gkids[gparent[k]].push_back(k);

    // Structure of L's block columns: a group's neighbours after it and its children's
    // structures (children come first in a postorder).
    std::vector<std::vector<int>> below(static_cast<std::size_t>(ng));
    {
        std::vector<int> mark(static_cast<std::size_t>(ng), -1);
        for (int j = 0; j < ng; ++j) {
            std::vector<int>& list = below[j];
            auto add = [&](int i) {
                if (i > j && mark[i] != j) {
                    mark[i] = j;
                    list.push_back(i);
                }
            };
            for (int h : neighbours(group[j])) add(at[h]);
            for (int c : gkids[j])
                for (int i : below[c]) add(i);
            std::sort(list.begin(), list.end());
        }
    }

    // Fundamental supernodes: a group joins its only child's supernode when the child's
    // structure is the group and the group's structure.
    std::vector<int> sn_of(static_cast<std::size_t>(ng));
    std::vector<int> sn_last;  // last group of each supernode
    for (int j = 0; j < ng; ++j) {
        const bool merge = j > 0 && gparent[j - 1] == j && gkids[j].size() == 1 &&
                           below[j - 1].size() == below[j].size() + 1;
        if (merge) {
            sn_last.back() = j;
        } else {
            sn_last.push_back(j);
        }
        sn_of[j] = static_cast<int>(sn_last.size()) - 1;
    }
    const int ns = static_cast<int>(sn_last.size());

    // Scalar numbering: the groups in their order, each group's columns in A's order.
    std::vector<int> start(static_cast<std::size_t>(ng) + 1, 0);  // factor column of group j
    perm_.assign(static_cast<std::size_t>(n), 0);
    for (int j = 0; j < ng; ++j) {
        start[j + 1] = start[j] + group_width(group[j]);
        for (int c = 0; c < group_width(group[j]); ++c)
            perm_[start[j] + c] = group_first[group[j]] + c;
    }
    std::vector<int> place(static_cast<std::size_t>(n));  // column of A -> factor column
    for (int i = 0; i < n; ++i) place[perm_[i]] = i;

    first_.assign(static_cast<std::size_t>(ns), 0);
    width_.assign(static_cast<std::size_t>(ns), 0);
    row_ptr_.assign(static_cast<std::size_t>(ns) + 1, 0);
    rows_.clear();
    panel_.assign(static_cast<std::size_t>(ns), 0);
    std::size_t total = 0;
    for (int s = 0, j = 0; s < ns; ++s) {
        first_[s] = start[j];
        width_[s] = start[sn_last[s] + 1] - start[j];
        for (int g : below[sn_last[s]])
            for (int c = start[g]; c < start[g + 1]; ++c) rows_.push_back(c);
        row_ptr_[s + 1] = rows_.size();
        panel_[s] = total;
        const std::size_t h = static_cast<std::size_t>(width_[s]) + (row_ptr_[s + 1] - row_ptr_[s]);
        total += h * static_cast<std::size_t>(width_[s]);
        j = sn_last[s] + 1;
    }
    // Each panel is cleared when it is factorised, and every entry of gather_ is written below:
    // neither keeps its old contents when it grows (a growing pile's Newton systems are analysed
    // again and again, each a little larger), and the pages are first written in parallel.
    values_.clear();
    values_.resize(total);
    d_.resize(static_cast<std::size_t>(n));

    // The supernodes' tree, the subtrees' ranges, and who updates whom.
    children_.assign(static_cast<std::size_t>(ns), {});
    roots_.clear();
    first_descendant_.resize(static_cast<std::size_t>(ns));
    std::vector<std::vector<int>> updaters(static_cast<std::size_t>(ns));
    for (int s = 0; s < ns; ++s) {
        first_descendant_[s] = children_[s].empty() ? s : first_descendant_[children_[s].front()];
        const int p = gparent[sn_last[s]];
        (p == -1 ? roots_ : children_[sn_of[p]]).push_back(s);
        int last = -1;
        for (int g : below[sn_last[s]])
            if (sn_of[g] != last) {
                last = sn_of[g];
                updaters[last].push_back(s);
            }
    }
    updater_ptr_.assign(static_cast<std::size_t>(ns) + 1, 0);
    updaters_.clear();
    for (int s = 0; s < ns; ++s) {
        updaters_.insert(updaters_.end(), updaters[s].begin(), updaters[s].end());
        updater_ptr_[s + 1] = updaters_.size();
    }

    // Work estimate per supernode (its dense factorisation and the updates it receives).
    subtree_work_.assign(static_cast<std::size_t>(ns), 0.0);
    own_work_.assign(static_cast<std::size_t>(ns), 0.0);
    subtree_entries_.assign(static_cast<std::size_t>(ns), 0);
    for (int s = 0; s < ns; ++s) {
        const double w = width_[s], h = w + static_cast<double>(row_ptr_[s + 1] - row_ptr_[s]);
        double work = w * w * h;
        for (std::size_t u = updater_ptr_[s]; u < updater_ptr_[s + 1]; ++u) {
            const int d = updaters_[u];
            const int* rd = rows_.data() + row_ptr_[d];
            const int* end = rows_.data() + row_ptr_[d + 1];
            const int* a0 = std::lower_bound(rd, end, first_[s]);
            const int* a1 = std::lower_bound(a0, end, first_[s] + width_[s]);
            work += 2.0 * static_cast<double>(end - a0) * static_cast<double>(a1 - a0) * width_[d];
        }
        own_work_[s] = work;
        subtree_work_[s] = work;
        subtree_entries_[s] = static_cast<std::size_t>(w * h);
        for (int c : children_[s]) {
            subtree_work_[s] += subtree_work_[c];
            subtree_entries_[s] += subtree_entries_[c];
        }
    }

    // Where each stored entry of A on or below the factor's diagonal goes: found for a group's
    // first column (its columns share their rows), then placed for each of its columns.
    gather_.clear();
    gather_.resize(static_cast<std::size_t>(A.nonZeros()));
    std::vector<int> sn_of_column(static_cast<std::size_t>(n));
    for (int s = 0; s < ns; ++s)
        for (int c = first_[s]; c < first_[s] + width_[s]; ++c) sn_of_column[c] = s;
    // Groups write disjoint ranges of gather_: in parallel.
    tbb::parallel_for(tbb::blocked_range<int>(0, ng, 16), [&](const tbb::blocked_range<int>& r) {
        std::vector<int> factor_row, panel_row;
        for (int g = r.begin(); g < r.end(); ++g) {
            const int c0 = group_first[g];
            const int j0 = place[c0];
            const int s = sn_of_column[j0];
            const int w = width_[s];
            const std::size_t h = static_cast<std::size_t>(w) + (row_ptr_[s + 1] - row_ptr_[s]);
            const int* rb = rows_.data() + row_ptr_[s];
            const int* re = rows_.data() + row_ptr_[s + 1];
            const int count = outer[c0 + 1] - outer[c0];
            factor_row.resize(static_cast<std::size_t>(count));
            panel_row.resize(static_cast<std::size_t>(count));
            for (int e = 0; e < count; ++e) {
                const int i = place[inner[outer[c0] + e]];
                factor_row[e] = i;
                if (i < j0) {
                    panel_row[e] = -1;
                } else if (i < first_[s] + w) {
                    panel_row[e] = i - first_[s];
                } else {
                    const int* it = std::lower_bound(rb, re, i);
                    if (it == re || *it != i)
                        throw std::logic_error(
                            "BlockLDLT: an entry of A outside the factor's structure");
                    panel_row[e] = static_cast<int>(w + (it - rb));
                }
            }
            for (int t = 0; t < group_width(g); ++t) {
                const int j = j0 + t;
                const std::size_t column = panel_[s] + static_cast<std::size_t>(j - first_[s]) * h;
                std::ptrdiff_t* out = gather_.data() + outer[c0 + t];
                for (int e = 0; e < count; ++e)
                    out[e] = factor_row[e] < j
                                 ? -1
                                 : static_cast<std::ptrdiff_t>(
                                       column + static_cast<std::size_t>(panel_row[e]));
            }
        }
    });
}

bool BlockLDLT::factor_supernode(int s, Scratch& scratch) {
    const SparseMatrix& A = *numeric_->a;
    const int f = first_[s], w = width_[s];
    const int nb = static_cast<int>(row_ptr_[s + 1] - row_ptr_[s]);
    const int h = w + nb;
    double* p = values_.data() + panel_[s];
    std::fill(p, p + static_cast<std::ptrdiff_t>(h) * w, 0.0);

    // Its columns of A.
    const int* outer = A.outerIndexPtr();
    const double* val = A.valuePtr();
    for (int j = f; j < f + w; ++j) {
        const int c = perm_[j];
        for (int k = outer[c]; k < outer[c + 1]; ++k)
            if (gather_[k] >= 0) values_[static_cast<std::size_t>(gather_[k])] = val[k];
    }

    // A supernode with much work of its own (the separators at the top of the tree, which
    // every path waits for) has its columns split into fixed ranges done as parallel tasks: the
    // ranges depend on the structure alone, so the result does not depend on the threads.
    // Isolated, so that a thread waiting for them takes no other supernode (whose scratch it
    // shares).
    const bool split = own_work_[s] >= kSplitSupernodeWork && w > kSplitColumns;
    auto for_column_ranges = [&](int lo, int hi, auto&& fn) {  // fn(lo, hi, scratch)
        if (!split || hi - lo <= kSplitColumns) {
            fn(lo, hi, scratch);
            return;
        }
        const int ranges = (hi - lo + kSplitColumns - 1) / kSplitColumns;
        tbb::this_task_arena::isolate([&] {
            tbb::parallel_for(0, ranges, [&](int r) {
                const int a = lo + r * kSplitColumns;
                fn(a, std::min(hi, a + kSplitColumns), numeric_->scratch.local());
            });
        });
    };

    // The updates of the supernodes below that reach it, each column's in ascending order.
    if (updater_ptr_[s] < updater_ptr_[s + 1]) {
        std::vector<int>& pos = scratch.position;
        if (pos.size() < static_cast<std::size_t>(n_)) pos.resize(static_cast<std::size_t>(n_));
        for (int i = 0; i < w; ++i) pos[f + i] = i;
        const int* rs = rows_.data() + row_ptr_[s];
        for (int k = 0; k < nb; ++k) pos[rs[k]] = w + k;
        const int* position = pos.data();
        for_column_ranges(0, w, [&](int lo, int hi, Scratch& sc) {
            for (std::size_t u = updater_ptr_[s]; u < updater_ptr_[s + 1]; ++u) {
                const int d = updaters_[u];
                const int wd = width_[d];
                const int nbd = static_cast<int>(row_ptr_[d + 1] - row_ptr_[d]);
                const int* rd = rows_.data() + row_ptr_[d];
                const int a0 = static_cast<int>(std::lower_bound(rd, rd + nbd, f + lo) - rd);
                const int a1 = static_cast<int>(std::lower_bound(rd + a0, rd + nbd, f + hi) - rd);
                if (a0 == a1) continue;
                const int k = a1 - a0, m = nbd - a0;
                const ConstPanel Ld(values_.data() + panel_[d], wd + nbd, wd);
                const auto rows = Ld.middleRows(wd + a0, m);
                sc.w.noalias() = rows.topRows(k) *
                                 Eigen::Map<const VecX>(d_.data() + first_[d], wd).asDiagonal();
                sc.c.noalias() = rows * sc.w.transpose();
                for (int cc = 0; cc < k; ++cc) {
                    double* pc = p + static_cast<std::ptrdiff_t>(rd[a0 + cc] - f) * h;
                    const double* cv = sc.c.data() + static_cast<std::ptrdiff_t>(cc) * m;
                    for (int i = cc; i < m; ++i) pc[position[rd[a0 + i]]] -= cv[i];
                }
            }
        });
    }

    // LDLᵀ of the panel without pivoting, kColumnBlock columns at a time, each block's
    // update of the columns after it (rows on and below the diagonal) as one product.
    Panel P(p, h, w);
    for (int j0 = 0; j0 < w; j0 += kColumnBlock) {
        const int b = std::min(kColumnBlock, w - j0);
        for (int j = j0; j < j0 + b; ++j) {
            const double dj = P(j, j);
            if (!std::isfinite(dj) || dj == 0.0) return false;
            d_[f + j] = dj;
            P.col(j).tail(h - j - 1) /= dj;
            for (int k = j + 1; k < j0 + b; ++k)
                P.col(k).tail(h - k) -= (dj * P(k, j)) * P.col(j).tail(h - k);
        }
        if (j0 + b == w) break;
        const Eigen::Map<const VecX> db(d_.data() + f + j0, b);
        for_column_ranges(j0 + b, w, [&](int lo, int hi, Scratch& sc) {
            sc.w.noalias() = P.block(lo, j0, hi - lo, b) * db.asDiagonal();
            P.block(lo, lo, h - lo, hi - lo).noalias() -=
                P.block(lo, j0, h - lo, b) * sc.w.transpose();
        });
    }
    return true;
}

void BlockLDLT::factor_subtree(int s) {
    if (numeric_->failed.load(std::memory_order_relaxed)) return;
    if (subtree_work_[s] < kSerialSubtreeWork || children_[s].empty()) {
        Scratch& scratch = numeric_->scratch.local();
        for (int t = first_descendant_[s]; t <= s; ++t)
            if (!factor_supernode(t, scratch)) {
                numeric_->failed = true;
                return;
            }
        return;
    }
    tbb::task_group tasks;
    for (int c : children_[s]) tasks.run([this, c] { factor_subtree(c); });
    tasks.wait();
    if (numeric_->failed.load()) return;
    if (!factor_supernode(s, numeric_->scratch.local())) numeric_->failed = true;
}

bool BlockLDLT::factorize(const SparseMatrix& A) {
    if (A.cols() != n_ || static_cast<std::size_t>(A.nonZeros()) != gather_.size())
        throw std::invalid_argument("BlockLDLT: the matrix is not the analysed pattern");
    numeric_->a = &A;
    numeric_->failed = false;
    if (roots_.size() == 1) {
        factor_subtree(roots_.front());
    } else {
        tbb::task_group tasks;
        for (int r : roots_) tasks.run([this, r] { factor_subtree(r); });
        tasks.wait();
    }
    numeric_->a = nullptr;
    return !numeric_->failed.load();
}

int BlockLDLT::negative_pivots() const {
    return static_cast<int>(std::count_if(d_.begin(), d_.end(), [](double v) { return v < 0; }));
}

// L y = b for supernode t: first the updates of the supernodes below that reach its rows (in
// ascending order, as a column-by-column forward substitution makes them), then its unit lower
// triangle. Reads only y of t's subtree and writes only t's rows, so disjoint subtrees run in
// parallel and the result does not depend on the schedule.
void BlockLDLT::forward_supernode(int t, VecX& y) const {
    const int f = first_[t], w = width_[t];
    VecX& v = numeric_->scratch.local().v;
    for (std::size_t u = updater_ptr_[t]; u < updater_ptr_[t + 1]; ++u) {
        const int d = updaters_[u];
        const int wd = width_[d];
        const int nbd = static_cast<int>(row_ptr_[d + 1] - row_ptr_[d]);
        const int* rd = rows_.data() + row_ptr_[d];
        const int a0 = static_cast<int>(std::lower_bound(rd, rd + nbd, f) - rd);
        const int a1 = static_cast<int>(std::lower_bound(rd + a0, rd + nbd, f + w) - rd);
        if (a0 == a1) continue;
        const ConstPanel Ld(values_.data() + panel_[d], wd + nbd, wd);
        v.noalias() = Ld.middleRows(wd + a0, a1 - a0) * y.segment(first_[d], wd);
        for (int i = a0; i < a1; ++i) y[rd[i]] -= v[i - a0];
    }
    const ConstPanel P(values_.data() + panel_[t],
                       w + static_cast<int>(row_ptr_[t + 1] - row_ptr_[t]), w);
    auto yt = y.segment(f, w);
    P.topRows(w).triangularView<Eigen::UnitLower>().solveInPlace(yt);
}

// Lᵀ x = y for supernode t (x in y's place): needs x of its ancestors only.
void BlockLDLT::backward_supernode(int t, VecX& y) const {
    const int f = first_[t], w = width_[t];
    const int nb = static_cast<int>(row_ptr_[t + 1] - row_ptr_[t]);
    const ConstPanel P(values_.data() + panel_[t], w + nb, w);
    auto yt = y.segment(f, w);
    if (nb > 0) {
        VecX& v = numeric_->scratch.local().v;
        v.resize(nb);
        const int* rs = rows_.data() + row_ptr_[t];
        for (int k = 0; k < nb; ++k) v[k] = y[rs[k]];
        yt.noalias() -= P.bottomRows(nb).transpose() * v;
    }
    P.topRows(w).triangularView<Eigen::UnitLower>().transpose().solveInPlace(yt);
}

void BlockLDLT::forward_subtree(int s, VecX& y) const {
    if (subtree_entries_[s] < kSerialSolveEntries || children_[s].empty()) {
        for (int t = first_descendant_[s]; t <= s; ++t) forward_supernode(t, y);
        return;
    }
    tbb::task_group tasks;
    for (int c : children_[s]) tasks.run([this, c, &y] { forward_subtree(c, y); });
    tasks.wait();
    forward_supernode(s, y);
}

void BlockLDLT::backward_subtree(int s, VecX& y) const {
    backward_supernode(s, y);
    if (subtree_entries_[s] < kSerialSolveEntries || children_[s].empty()) {
        for (int t = s - 1; t >= first_descendant_[s]; --t) backward_supernode(t, y);
        return;
    }
    tbb::task_group tasks;
    for (int c : children_[s]) tasks.run([this, c, &y] { backward_subtree(c, y); });
    tasks.wait();
}

void BlockLDLT::solve(const VecX& b, VecX& x) const {
    VecX y(n_);
    for (Eigen::Index i = 0; i < n_; ++i) y[i] = b[perm_[static_cast<std::size_t>(i)]];
    auto over_roots = [&](auto&& subtree) {
        if (roots_.size() == 1) {
            subtree(roots_.front());
            return;
        }
        tbb::task_group tasks;
        for (int r : roots_) tasks.run([&subtree, r] { subtree(r); });
        tasks.wait();
    };
    over_roots([&](int r) { forward_subtree(r, y); });           // L y = b
    y.array() /= Eigen::Map<const VecX>(d_.data(), n_).array();  // D y = y
    over_roots([&](int r) { backward_subtree(r, y); });          // Lᵀ x = y
    x.resize(n_);
    for (Eigen::Index i = 0; i < n_; ++i) x[perm_[static_cast<std::size_t>(i)]] = y[i];
}

}  // namespace concord
