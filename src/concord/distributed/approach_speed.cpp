#include "concord/distributed/approach_speed.hpp"

#include <algorithm>
#include <cmath>

namespace concord {

namespace {

// The largest gap between two boxes along one axis (0 when they overlap): two boxes lie
// within d of each other along every axis exactly when the first grown by d meets the second.
double axis_gap(const Box3& a, const Box3& b) {
    return std::max({0.0, (b.lo - a.hi).maxCoeff(), (a.lo - b.hi).maxCoeff()});
}

}  // namespace

BoxVelocity box_velocity(const AffineBody& body, const RestBound& rest, const VecX& q,
                         const VecX& q_dot, double tau) {
    const Box3 now = world_box(body, rest, q);
    const Box3 then = world_box(body, rest, q + tau * q_dot);
    return {(then.lo - now.lo) / tau, (then.hi - now.hi) / tau};
}

ApproachSpeeds::ApproachSpeeds(const WorldModel& model, const std::vector<RestBound>& rest,
                               const VecX& q)
    : model_(model), rest_(rest) {
    for (int b = 0; b < model_.num_bodies(); ++b) {
        const auto i = static_cast<std::size_t>(b);
        if (model_.movable[i]) continue;
        const AffineBody& body = model_.bodies[i];
        const Vec12 qb = q.segment<12>(12 * b);
        const auto& V = body.mesh().vertices;
        const auto& F = body.mesh().faces;
        for (Eigen::Index f = 0; f < F.rows(); ++f) {
            AABB box;
            for (int k = 0; k < 3; ++k)
                box.expand(affine_apply(qb, Vec3(V.row(F(f, k)).transpose())));
            static_boxes_.push_back(box);
        }
    }
    static_tree_.build(static_boxes_);
}

std::vector<double> ApproachSpeeds::operator()(const VecX& q, const VecX& q_dot, double h,
                                               double reach_time, double dhat) const {
    struct Item {
        Box3 box;
        BoxVelocity v;
        double grow = 0.0;  ///< reach_time times its speed plus dhat / 2: a pair's sum covers it
        int body = 0;
    };
    std::vector<double> out(static_cast<std::size_t>(model_.num_bodies()), 0.0);
    std::vector<Item> items;
    for (int b = 0; b < model_.num_bodies(); ++b) {
        const auto i = static_cast<std::size_t>(b);
        if (!model_.movable[i]) continue;
        const AffineBody& body = model_.bodies[i];
        VecX v = model_.body_coordinates(q_dot, b);
        if (model_.dynamic[i]) v.head<12>() += h * model_.initial_external_acceleration[i];
        const VecX qb = model_.body_coordinates(q, b);
        Item it{world_box(body, rest_[i], qb), box_velocity(body, rest_[i], qb, v, 1e-4 * h), 0.0,
                b};
        const double speed = relative_speed(it.v, BoxVelocity{});
        const double reach = reach_time * speed + dhat;

        // Still things: the static bodies' triangles and the ground planes.
        bool near_still = false;
        const Box3& bx = it.box;
        if (!static_tree_.empty()) {
            Box3 around = bx;
            around.inflate(reach);
            static_tree_.query(AABB(around.lo, around.hi), [&](int) { near_still = true; });
        }
        for (const HalfSpace& plane : model_.planes) {
            const Vec3 half = 0.5 * (bx.hi - bx.lo);
            const double lowest =
                plane.normal.dot(bx.center() - plane.point) - plane.normal.cwiseAbs().dot(half);
            near_still = near_still || lowest <= reach;
        }
        if (near_still) out[i] = speed;
        it.grow = reach_time * speed + 0.5 * dhat;
        items.push_back(it);
    }

    // Pairs of movable bodies: a sweep along x over the boxes grown by their own reach (the
    // relative speed is at most the sum of the two speeds), then the pair's own test.
    std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
        const double la = a.box.lo.x() - a.grow, lb = b.box.lo.x() - b.grow;
        return la != lb ? la < lb : a.body < b.body;
    });
    for (std::size_t a = 0; a < items.size(); ++a) {
        const Item& A = items[a];
        const double end = A.box.hi.x() + A.grow;
        for (std::size_t c = a + 1; c < items.size() && items[c].box.lo.x() - items[c].grow <= end;
             ++c) {
            const Item& C = items[c];
            const double rel = relative_speed(A.v, C.v);
            if (axis_gap(A.box, C.box) > reach_time * rel + dhat) continue;
            auto& oa = out[static_cast<std::size_t>(A.body)];
            auto& oc = out[static_cast<std::size_t>(C.body)];
            oa = std::max(oa, rel);
            oc = std::max(oc, rel);
        }
    }
    return out;
}

}  // namespace concord
