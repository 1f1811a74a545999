// `concord info SCENE.json`: validates a scene (meshes, mass properties, the initial state) and
// prints its size. Builds each body as the World would, but does not build the World.
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "commands.hpp"
#include "concord/body/body_builder.hpp"
#include "concord/collision/audit/intersection_audit.hpp"
#include "concord/geometry/aabb.hpp"
#include "concord/math/error.hpp"
#include "concord/scene/scene_names.hpp"
#include "concord/scene/scene_parser.hpp"

namespace concord::cli {

namespace {

struct InfoOptions {
    std::string scene;
    bool list_bodies = false;
};

std::string vec_text(const Vec3& v) {
    return fmt::format("[{:.6g}, {:.6g}, {:.6g}]", v[0], v[1], v[2]);
}

int run_info(const InfoOptions& opt) {
    const SceneSpec scene = load_scene_file(opt.scene);

    std::vector<AffineBody> bodies;
    bodies.reserve(scene.bodies.size());
    for (const BodySpec& spec : scene.bodies) {
        try {
            bodies.push_back(build_body(spec));
        } catch (const InputError& e) {
            throw InputError(opt.scene + ": " + e.what());
        }
    }

    int counts[3] = {0, 0, 0};
    long long triangles = 0, vertices = 0;
    double mass = 0.0, dynamic_mass = 0.0;
    Vec3 lo = Vec3::Constant(std::numeric_limits<double>::infinity());
    Vec3 hi = -lo;
    std::vector<Vertices> placed(bodies.size());
    for (std::size_t i = 0; i < bodies.size(); ++i) {
        const AffineBody& b = bodies[i];
        const BodySpec& spec = scene.bodies[i];
        ++counts[static_cast<int>(b.motion)];
        triangles += b.mesh().num_faces();
        vertices += b.mesh().num_vertices();
        mass += b.mass_properties.mass;
        if (b.is_dynamic()) dynamic_mass += b.mass_properties.mass;
        // x = R X + position, as the scene file defines the initial placement.
        placed[i] =
            (b.mesh().vertices * spec.rotation.transpose()).rowwise() + spec.position.transpose();
        if (placed[i].rows() > 0) {
            lo = lo.cwiseMin(placed[i].colwise().minCoeff().transpose());
            hi = hi.cwiseMax(placed[i].colwise().maxCoeff().transpose());
        }
    }
    const int dynamic = counts[static_cast<int>(MotionType::Dynamic)];

    std::cout << fmt::format("scene        {} ({})\n", scene.name, opt.scene);
    std::cout << fmt::format("bodies       {} ({} dynamic, {} static, {} kinematic)\n",
                             bodies.size(), dynamic, counts[static_cast<int>(MotionType::Static)],
                             counts[static_cast<int>(MotionType::Kinematic)]);
    std::cout << fmt::format("planes       {}\n", scene.planes.size());
    std::cout << fmt::format("triangles    {} ({} vertices)\n", triangles, vertices);
    std::cout << fmt::format("DoFs         {} (12 per dynamic body)\n", 12LL * dynamic);
    std::cout << fmt::format("total mass   {:.6g} kg (dynamic bodies {:.6g} kg)\n", mass,
                             dynamic_mass);
    if (bodies.empty()) {
        std::cout << "bounding box empty (no bodies)\n";
    } else {
        std::cout << fmt::format("bounding box {} to {} m (size {})\n", vec_text(lo), vec_text(hi),
                                 vec_text(hi - lo));
    }
    std::cout << fmt::format("time         {} frames x {} substeps x {:.6g} s = {:.6g} s\n",
                             scene.frames, scene.substeps, scene.time_step,
                             static_cast<double>(scene.frames) * scene.substeps * scene.time_step);
    if (opt.list_bodies) {
        for (std::size_t i = 0; i < bodies.size(); ++i) {
            const AffineBody& b = bodies[i];
            std::cout << fmt::format("  {:<24} {:<9} {:<9} {:>8} triangles  {:.6g} kg\n", b.name,
                                     shape_kind_name(scene.bodies[i].shape.kind),
                                     motion_type_name(b.motion), b.mesh().num_faces(),
                                     b.mass_properties.mass);
        }
    }

    // The initial state must be free of intersections (the simulator refuses it otherwise);
    // pairs in contact.exclude (a robot's adjacent links) may overlap.
    std::vector<AuditBody> audit_bodies;
    for (std::size_t i = 0; i < bodies.size(); ++i)
        audit_bodies.push_back({&bodies[i].mesh().faces, &placed[i]});
    std::vector<HalfSpace> planes;
    for (const PlaneSpec& p : scene.planes) planes.push_back({p.point, p.normal});
    const AuditResult audit = audit_intersections(audit_bodies, planes, 1, scene.contact.exclude);
    if (!audit.triangle_hits.empty()) {
        const TriangleHit& h = audit.triangle_hits.front();
        throw InputError(fmt::format("{}: bodies '{}' and '{}' intersect in the initial state",
                                     opt.scene, bodies[static_cast<std::size_t>(h.body_a)].name,
                                     bodies[static_cast<std::size_t>(h.body_b)].name));
    }
    if (!audit.plane_hits.empty()) {
        const PlaneHit& h = audit.plane_hits.front();
        throw InputError(fmt::format("{}: body '{}' is on or below planes[{}] in the initial state",
                                     opt.scene, bodies[static_cast<std::size_t>(h.body)].name,
                                     h.plane));
    }
    std::cout << "initial state: no intersection (exact audit); the scene is valid\n";
    return kExitOk;
}

}  // namespace

void register_info(CLI::App& app, Action& action) {
    auto opt = std::make_shared<InfoOptions>();
    auto* cmd = app.add_subcommand("info", "Validate a scene file and print its size");
    cmd->add_option("scene", opt->scene, "Scene file (JSON)")->required();
    cmd->add_flag("--bodies", opt->list_bodies, "Also list every body");
    cmd->callback([opt, &action] { action = [opt] { return run_info(*opt); }; });
}

}  // namespace concord::cli
