// Scenes and helpers shared by the distributed-solver tests.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "concord/distributed/admm_protocol.hpp"
#include "concord/distributed/distributed_world.hpp"
#include "concord/scene/scene_spec.hpp"
#include "concord/world/world.hpp"

namespace concord::test {

inline BodySpec box(const std::string& name, const Vec3& position, const Vec3& size = Vec3::Ones()) {
    BodySpec b;
    b.name = name;
    b.shape.kind = ShapeKind::Box;
    b.shape.size = size;
    b.material = {1000.0, 1e8};
    b.position = position;
    return b;
}

/// A plank resting across two boxes on the ground, every gap half of dhat: the plank straddles
/// the plane x = 0 and touches both boxes, which touch the ground.
inline SceneSpec bridge_scene() {
    SceneSpec s;
    s.name = "bridge";
    s.time_step = 0.01;
    s.contact.dhat = 1e-3;
    const double gap = 0.5e-3;
    s.planes = {PlaneSpec{Vec3::Zero(), Vec3::UnitY(), std::nullopt}};
    s.bodies = {box("left", Vec3(-1.5, 0.5 + gap, 0)), box("right", Vec3(1.5, 0.5 + gap, 0)),
                box("plank", Vec3(0.1, 1.25 + 2 * gap, 0), Vec3(4.0, 0.5, 1.0))};
    s.solver.convergence_mode = ConvergenceMode::StepNorm;
    s.solver.step_tol = 1e-7;
    s.solver.max_iterations = 200;
    return s;
}

/// An empty scene over a frictionless ground plane, h = 0.01 s.
inline SceneSpec frictionless_ground(const std::string& name) {
    SceneSpec s;
    s.name = name;
    s.time_step = 0.01;
    s.contact.friction = 0.0;
    s.planes = {PlaneSpec{Vec3::Zero(), Vec3::UnitY(), std::nullopt}};
    return s;
}

/// A table top (5 x 0.5 x 5 m) on four 1 m legs standing on the ground, every gap half of dhat.
inline SceneSpec table_scene() {
    SceneSpec s;
    s.name = "table";
    s.time_step = 0.01;
    const double gap = 0.5e-3;
    s.planes = {PlaneSpec{Vec3::Zero(), Vec3::UnitY(), std::nullopt}};
    for (int i = 0; i < 4; ++i) {
        const double x = (i & 1) ? 2.0 : -2.0, z = (i & 2) ? 2.0 : -2.0;
        s.bodies.push_back(box("leg" + std::to_string(i), Vec3(x, 0.5 + gap, z)));
    }
    s.bodies.push_back(box("top", Vec3(0, 1.25 + 2 * gap, 0), Vec3(5.0, 0.5, 5.0)));
    s.solver.convergence_mode = ConvergenceMode::StepNorm;
    s.solver.step_tol = 1e-7;
    return s;
}

inline SceneSpec with_workers(SceneSpec s, int workers, double theta = 1e-6) {
    s.distributed.workers = workers;
    s.distributed.theta = theta;
    s.distributed.max_iterations = 500;
    s.distributed.load_balance.enabled = false;
    s.distributed.plane_gaps = false;  // the planes stay where the test puts them
    return s;
}

template <typename W>
VecX state_of(const W& w) {
    VecX q(12 * w.num_bodies());
    for (int b = 0; b < w.num_bodies(); ++b) q.segment<12>(12 * b) = w.q(b);
    return q;
}

/// The bodies a distributed checkpoint (section format 2) counts as supported at its step's end
/// (BodyRecord::supported; the home workers' lists, merged and sorted).
inline std::vector<int> supported_bodies(const Checkpoint& c) {
    MessageReader r(c.extension);
    if (r.get<std::int32_t>() != 2) return {};
    const auto workers = r.get<std::int32_t>();
    get_partition(r);
    for (int list = 0; list < 4; ++list) r.get_list<double>();  // the balancer
    std::vector<int> out;
    for (int k = 0; k < workers; ++k) {
        get_carried(r);
        for (std::int32_t id : r.get_list<std::int32_t>()) out.push_back(id);
    }
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace concord::test
