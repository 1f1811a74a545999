#include "concord/scene/scene_json.hpp"

#include <filesystem>
#include <string>

#include "concord/scene/scene_names.hpp"
#include "concord/scene/distributed_json.hpp"
#include "concord/scene/solver_params_json.hpp"

namespace concord {

namespace {

using nlohmann::json;

json vec3_json(const Vec3& v) {
    return json::array({v[0], v[1], v[2]});
}

json rotation_json(const Mat3& R) {
    json rows = json::array();
    for (int i = 0; i < 3; ++i) rows.push_back(json::array({R(i, 0), R(i, 1), R(i, 2)}));
    return json{{"matrix", rows}};
}

json material_json(const MaterialSpec& m) {
    return json{{"density", m.density}, {"youngs_modulus", m.youngs_modulus}};
}

json shape_json(const ShapeSpec& s) {
    json p;
    switch (s.kind) {
        case ShapeKind::Box:
            p = {{"size", vec3_json(s.size)},
                 {"divisions", {s.divisions[0], s.divisions[1], s.divisions[2]}}};
            break;
        case ShapeKind::Sphere:
            p = {{"radius", s.radius}, {"subdivisions", s.subdivisions}};
            break;
        case ShapeKind::Cylinder:
            p = {{"radius", s.radius}, {"height", s.height}, {"segments", s.segments}};
            break;
        case ShapeKind::Capsule:
            p = {{"radius", s.radius},
                 {"height", s.height},
                 {"segments", s.segments},
                 {"rings", s.rings}};
            break;
        case ShapeKind::Torus:
            p = {{"major_radius", s.major_radius},
                 {"minor_radius", s.radius},
                 {"segments", s.segments},
                 {"rings", s.rings}};
            break;
        case ShapeKind::Mesh:
            p = {{"file", s.resolved_file.empty() ? s.file : s.resolved_file},
                 {"scale", vec3_json(s.scale)}};
            break;
        case ShapeKind::Container:
            p = {{"size", vec3_json(s.size)}, {"wall_thickness", s.wall_thickness}};
            break;
        case ShapeKind::Compound: {
            json parts = json::array();
            for (const ShapePart& part : s.parts)
                parts.push_back({{"shape", shape_json(part.shape)},
                                 {"position", vec3_json(part.position)},
                                 {"rotation", rotation_json(part.rotation)}});
            p = {{"parts", parts}};
            break;
        }
        case ShapeKind::Funnel:
            p = {{"top_radius", s.top_radius},
                 {"bottom_radius", s.bottom_radius},
                 {"height", s.height},
                 {"wall_thickness", s.wall_thickness},
                 {"segments", s.segments}};
            break;
    }
    return json{{std::string(shape_kind_name(s.kind)), p}};
}

json kinematic_json(const KinematicSpec& k) {
    json j{{"pivot", vec3_json(k.pivot)}};
    if (k.keyframes.empty()) {
        j["linear_velocity"] = vec3_json(k.linear_velocity);
        j["angular_velocity"] = vec3_json(k.angular_velocity);
    } else {
        json keys = json::array();
        for (const Keyframe& key : k.keyframes) {
            keys.push_back({{"time", key.time},
                            {"position", vec3_json(key.position)},
                            {"rotation", rotation_json(key.rotation)}});
        }
        j["keyframes"] = keys;
    }
    return j;
}

json body_json(const BodySpec& b) {
    json j{{"name", b.name},
           {"shape", shape_json(b.shape)},
           {"position", vec3_json(b.position)},
           {"rotation", rotation_json(b.rotation)},
           {"motion", std::string(motion_type_name(b.motion))}};
    if (b.material_name.empty()) {
        j["material"] = material_json(b.material);
    } else {
        j["material"] = b.material_name;
    }
    if (b.motion == MotionType::Dynamic) {
        j["velocity"] = vec3_json(b.velocity);
        j["angular_velocity"] = vec3_json(b.angular_velocity);
        j["external_force"] = vec3_json(b.external_force);
    }
    if (b.motion == MotionType::Kinematic) j["kinematic"] = kinematic_json(b.kinematic);
    if (b.friction) j["friction"] = *b.friction;
    if (b.inertia) {
        json rows = json::array();
        for (int i = 0; i < 3; ++i) rows.push_back(vec3_json(b.inertia->inertia.row(i).transpose()));
        j["inertia"] = {{"mass", b.inertia->mass},
                        {"center_of_mass", vec3_json(b.inertia->center_of_mass)},
                        {"inertia", rows}};
    }
    if (b.elastic) {
        json e{{"basis", b.elastic->basis}, {"origin", vec3_json(b.elastic->origin)}};
        if (!b.elastic->initial.empty()) e["initial"] = b.elastic->initial;
        j["elastic"] = e;
    }
    return j;
}

json schedule_json(const JointTargetSchedule& s) {
    if (s.kind == TargetScheduleKind::PiecewiseLinear) {
        json keys = json::array();
        for (const auto& k : s.keyframes) keys.push_back({k.time, k.value});
        return {{"keyframes", keys}};
    }
    return {{"sinusoid",
             {{"offset", s.offset}, {"amplitude", s.amplitude}, {"frequency", s.frequency},
              {"phase", s.phase}}}};
}

json joint_json(const JointSpec& j, const SceneSpec& scene) {
    auto body = [&](int b) {
        return b < 0 ? std::string("world") : scene.bodies[static_cast<std::size_t>(b)].name;
    };
    json out{{"type", joint_type_name(j.type)}, {"parent", body(j.parent)}, {"child", body(j.child)}};
    if (!j.name.empty()) out["name"] = j.name;
    if (j.world_anchor) {
        out["anchor"] = vec3_json(*j.world_anchor);
    } else {
        out["parent_anchor"] = vec3_json(j.parent_anchor);
        out["child_anchor"] = vec3_json(j.child_anchor);
    }
    if (has_coordinate(j.type)) out["axis"] = vec3_json(j.axis);
    if (j.drive.enabled) {
        json d{{"mode", j.drive.mode == DriveMode::Position ? "position" : "velocity"},
               {"target", j.drive.target}, {"ke", j.drive.ke}, {"kd", j.drive.kd}};
        if (!j.drive.schedule.empty()) d["schedule"] = schedule_json(j.drive.schedule);
        out["drive"] = d;
    }
    if (j.limits.enabled)
        out["limits"] = {{"lower", j.limits.lower}, {"upper", j.limits.upper},
                         {"stiffness", j.limits.stiffness}};
    out["stiffness"] = j.stiffness;
    out["orientation_length"] = j.orientation_length;
    return out;
}

}  // namespace

nlohmann::json scene_to_json(const SceneSpec& s) {
    json materials = json::object();
    for (const auto& [name, m] : s.materials) materials[name] = material_json(m);
    json planes = json::array();
    for (const PlaneSpec& p : s.planes) {
        json j{{"point", vec3_json(p.point)}, {"normal", vec3_json(p.normal)}};
        if (p.friction) j["friction"] = *p.friction;
        planes.push_back(j);
    }
    json bodies = json::array();
    for (const BodySpec& b : s.bodies) bodies.push_back(body_json(b));
    json exclude = json::array();
    for (const auto& [a, b] : s.contact.exclude)
        exclude.push_back({s.bodies[static_cast<std::size_t>(a)].name,
                           s.bodies[static_cast<std::size_t>(b)].name});
    json out{
        {"name", s.name},
        {"time_step", s.time_step},
        {"frames", s.frames},
        {"substeps", s.substeps},
        {"checkpoint_every", s.checkpoint_every == SceneSpec::kCheckpointAuto
                                 ? json("auto")
                                 : json(s.checkpoint_every)},
        {"gravity", vec3_json(s.gravity)},
        {"contact",
         {{"model", to_string(s.contact.model)},
          {"dhat", s.contact.dhat},
          {"friction", s.contact.friction},
          {"friction_velocity", s.contact.friction_velocity},
          {"friction_iterations", s.contact.friction_iterations},
          {"barrier_stiffness", s.contact.barrier_stiffness},
          {"al_penalty", s.contact.al_penalty},
          {"al_toi_threshold", s.contact.al_toi_threshold},
          {"al_iterations", s.contact.al_iterations},
          {"al_load_compression", s.contact.al_load_compression},
          {"hybrid_barrier_iterations", s.contact.hybrid_barrier_iterations},
          {"exclude", exclude}}},
        {"solver", solver_params_to_json(s.solver)},
        {"materials", materials},
        {"planes", planes},
        {"bodies", bodies},
    };
    {
        json bases = json::object();
        for (const ModalBasisSpec& m : s.modal_bases) {
            json d = m.definition;
            // A data file named relative to the scene file is written as an absolute path, so
            // that the written scene reads the same data wherever it is.
            if (d.contains("file") && d["file"].is_string()) {
                std::filesystem::path f(d["file"].get<std::string>());
                if (f.is_relative())
                    d["file"] = std::filesystem::absolute(
                                    (m.base_dir.empty() ? std::filesystem::path(".")
                                                        : std::filesystem::path(m.base_dir)) / f)
                                    .lexically_normal()
                                    .string();
            }
            bases[m.name] = d;
        }
        out["modal_bases"] = bases;
    }
    {
        json joints = json::array();
        for (const JointSpec& j : s.joints) joints.push_back(joint_json(j, s));
        out["joints"] = joints;
    }
    {
        json fluids = json::array();
        for (const FluidBlockSpec& f : s.fluids) {
            json j{{"name", f.name}};
            if (f.has_block)
                j["block"] = {{"min", vec3_json(f.block_min)}, {"max", vec3_json(f.block_max)}};
            else
                j["mesh"] = {{"path", f.resolved_mesh_file}, {"scale", vec3_json(f.mesh_scale)}};
            j["particle_radius"] = f.particle_radius;
            j["rest_density"] = f.rest_density;
            j["viscosity"] = f.viscosity;
            j["density_tolerance"] = f.density_tolerance;
            j["velocity"] = vec3_json(f.velocity);
            fluids.push_back(j);
        }
        out["fluids"] = fluids;
    }
    // Written only when set, so that single-machine scenes resolve as before.
    if (!(s.distributed == DistributedSpec{}))
        out["distributed"] = distributed_spec_to_json(s.distributed);
    return out;
}

}  // namespace concord
