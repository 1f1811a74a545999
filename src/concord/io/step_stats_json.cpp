#include "concord/io/step_stats_json.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include "concord/solver/solver_enum_names.hpp"

namespace concord {

namespace {

void add_distributed(const DistributedStepStats& d, nlohmann::json& j) {
    j["admm_iterations"] = d.admm_iterations;
    j["t_sync"] = d.t_sync;
    j["t_parallel"] = d.t_parallel;
    j["workers"] = d.workers;
    j["merge_blocked"] = d.merge_blocked;
    j["anderson_steps"] = d.anderson_steps;
    j["anderson_restarts"] = d.anderson_restarts;
    j["primal_residual"] = d.primal_residual;
    j["dual_residual"] = d.dual_residual;
    nlohmann::json workers = nlohmann::json::array();
    for (const WorkerStepStats& w : d.per_worker)
        workers.push_back({{"bodies", w.bodies},
                           {"shared", w.shared},
                           {"owned", w.owned},
                           {"owned_mass", w.owned_mass},
                           {"newton_iterations", w.newton_iterations},
                           {"contacts", w.contacts},
                           {"island_rounds", w.island_rounds},
                           {"t_compute", w.t_compute},
                           {"t_sync", w.t_sync},
                           {"load", w.load}});
    j["per_worker"] = std::move(workers);
    j["planes"] = d.planes;
    j["owners"] = d.owners;
    j["overlap_width"] = d.overlap_width;
}

}  // namespace

nlohmann::json step_stats_to_json(const StepStats& s) {
    nlohmann::json min_distance = nullptr;
    if (std::isfinite(s.min_distance)) min_distance = s.min_distance;
    nlohmann::json j{
        {"status", std::string(to_string(s.status))},
        {"stop_reason", std::string(to_string(s.stop_reason))},
        {"newton_iterations", s.newton_iterations},
        {"converged", s.converged},
        {"residual", s.residual},
        {"contacts", s.contacts},
        {"candidates", s.candidates},
        {"min_distance", min_distance},
        {"barrier_stiffness", s.barrier_stiffness},
        {"line_search_trials", s.line_search_trials},
        {"ccd_limited_steps", s.ccd_limited_steps},
        {"al_switches", s.al_switches},
        {"linear_solver_iterations", s.linear_solver_iterations},
        {"islands", s.islands},
        {"substeps", s.substeps},
        {"retries", s.retries},
        {"time_step", s.time_step},
        {"t_coll", s.t_coll},
        {"t_assembly", s.t_assembly},
        {"t_linear", s.t_linear},
        {"t_line_search", s.t_line_search},
        {"t_solve", s.t_solve},
        {"t_frame", s.t_frame},
    };
    if (!s.body_contacts.empty()) j["body_contacts"] = s.body_contacts;
    if (s.distributed) add_distributed(*s.distributed, j);
    if (s.joints)
        j["joints"] = {{"position_residual", s.joints->position},
                       {"orientation_residual", s.joints->orientation},
                       {"limit_violation", s.joints->limit_violation}};
    if (s.fluid)
        j["fluid"] = {{"particles", s.fluid->particles},
                      {"substeps", s.fluid->substeps},
                      {"pressure_iterations", s.fluid->pressure_iterations},
                      {"density_error", s.fluid->density_error},
                      {"converged", s.fluid->converged},
                      {"particles_in_bodies", s.fluid->particles_in_bodies},
                      {"t_fluid", s.fluid->t_fluid},
                      {"t_neighbors", s.fluid->t_neighbors},
                      {"t_pressure", s.fluid->t_pressure},
                      {"t_coupling", s.fluid->t_coupling},
                      {"pushed_out", s.fluid->pushed_out}};
    return j;
}

namespace {

template <typename E>
E enum_field(const JsonNode& node) {
    auto v = node.value().is_string() ? enum_from_string<E>(node.value().get<std::string>())
                                      : std::nullopt;
    if (!v) node.fail("expected one of " + enum_name_list<E>() + ", got " + node.describe());
    return *v;
}

}  // namespace

StepStats step_stats_from_json(const JsonNode& node) {
    if (!node.value().is_object()) node.fail("expected an object, got " + node.describe());
    StepStats s;
    constexpr int kMaxCount = std::numeric_limits<int>::max();
    auto count = [&](const char* key, int& field) {
        if (auto n = node.find(key)) field = n->integer(0, kMaxCount);
    };
    auto non_negative = [&](const char* key, double& field) {
        if (auto n = node.find(key)) field = n->non_negative_number();
    };
    if (auto n = node.find("status")) s.status = enum_field<ConvergenceStatus>(*n);
    if (auto n = node.find("stop_reason")) s.stop_reason = enum_field<StopReason>(*n);
    count("newton_iterations", s.newton_iterations);
    if (auto n = node.find("converged")) s.converged = n->boolean();
    non_negative("residual", s.residual);
    count("contacts", s.contacts);
    count("candidates", s.candidates);
    if (auto n = node.find("body_contacts")) {
        for (std::size_t i = 0, len = n->array_size(); i < len; ++i)
            s.body_contacts.push_back(n->element(i).integer(0, kMaxCount));
    }
    if (auto n = node.find("joints")) {
        n->expect_object({"position_residual", "orientation_residual", "limit_violation"});
        JointStepStats js;
        if (auto v = n->find("position_residual")) js.position = v->non_negative_number();
        if (auto v = n->find("orientation_residual")) js.orientation = v->non_negative_number();
        if (auto v = n->find("limit_violation")) js.limit_violation = v->non_negative_number();
        s.joints = js;
    }
    if (auto n = node.find("fluid")) {
        n->expect_object({"particles", "substeps", "pressure_iterations", "density_error",
                          "converged", "particles_in_bodies", "t_fluid", "t_neighbors",
                          "t_pressure", "t_coupling", "pushed_out"});
        FluidStepStats f;
        auto fcount = [&](const char* key, int& field) {
            if (auto v = n->find(key)) field = v->integer(0, kMaxCount);
        };
        auto fnumber = [&](const char* key, double& field) {
            if (auto v = n->find(key)) field = v->non_negative_number();
        };
        fcount("particles", f.particles);
        fcount("substeps", f.substeps);
        fcount("pressure_iterations", f.pressure_iterations);
        fnumber("density_error", f.density_error);
        if (auto v = n->find("converged")) f.converged = v->boolean();
        fcount("particles_in_bodies", f.particles_in_bodies);
        fnumber("t_fluid", f.t_fluid);
        fnumber("t_neighbors", f.t_neighbors);
        fnumber("t_pressure", f.t_pressure);
        fnumber("t_coupling", f.t_coupling);
        fcount("pushed_out", f.pushed_out);
        s.fluid = f;
    }
    if (auto n = node.find("min_distance"); n && !n->value().is_null()) {
        s.min_distance = n->non_negative_number();
    }
    non_negative("barrier_stiffness", s.barrier_stiffness);
    count("line_search_trials", s.line_search_trials);
    count("ccd_limited_steps", s.ccd_limited_steps);
    count("al_switches", s.al_switches);
    count("linear_solver_iterations", s.linear_solver_iterations);
    count("islands", s.islands);
    count("substeps", s.substeps);
    count("retries", s.retries);
    non_negative("time_step", s.time_step);
    non_negative("t_coll", s.t_coll);
    non_negative("t_assembly", s.t_assembly);
    non_negative("t_linear", s.t_linear);
    non_negative("t_line_search", s.t_line_search);
    non_negative("t_solve", s.t_solve);
    non_negative("t_frame", s.t_frame);
    if (auto n = node.find("admm_iterations")) {
        DistributedStepStats d;
        d.admm_iterations = n->integer(0, kMaxCount);
        if (auto m = node.find("workers")) d.workers = m->integer(0, kMaxCount);
        if (auto m = node.find("t_sync")) d.t_sync = m->non_negative_number();
        if (auto m = node.find("t_parallel")) d.t_parallel = m->non_negative_number();
        if (auto m = node.find("merge_blocked")) d.merge_blocked = m->integer(0, kMaxCount);
        if (auto m = node.find("anderson_steps")) d.anderson_steps = m->integer(0, kMaxCount);
        if (auto m = node.find("anderson_restarts"))
            d.anderson_restarts = m->integer(0, kMaxCount);
        if (auto m = node.find("primal_residual")) d.primal_residual = m->non_negative_number();
        if (auto m = node.find("dual_residual")) d.dual_residual = m->non_negative_number();
        if (auto m = node.find("overlap_width")) d.overlap_width = m->non_negative_number();
        if (auto m = node.find("owners")) {
            for (std::size_t i = 0, len = m->array_size(); i < len; ++i)
                d.owners.push_back(m->element(i).integer(-1, 63));
        }
        if (auto m = node.find("planes")) {
            for (std::size_t a = 0, len = m->array_size(); a < len; ++a) {
                JsonNode axis = m->element(a);
                std::vector<double> p;
                for (std::size_t i = 0, k = axis.array_size(); i < k; ++i)
                    p.push_back(axis.element(i).number());
                d.planes.push_back(std::move(p));
            }
        }
        s.distributed = d;
    }
    return s;
}

void accumulate_substep(StepStats& frame, const StepStats& step, bool first) {
    if (first) {
        frame = step;
        return;
    }
    if (worst(frame.status, step.status) != frame.status) {
        frame.status = step.status;
        frame.stop_reason = step.stop_reason;
    }
    frame.newton_iterations += step.newton_iterations;
    frame.converged = frame.converged && step.converged;
    frame.residual = std::max(frame.residual, step.residual);
    frame.contacts = step.contacts;
    frame.body_contacts = step.body_contacts;
    frame.candidates = std::max(frame.candidates, step.candidates);
    frame.min_distance = std::min(frame.min_distance, step.min_distance);
    frame.barrier_stiffness = step.barrier_stiffness;
    frame.line_search_trials += step.line_search_trials;
    frame.ccd_limited_steps += step.ccd_limited_steps;
    frame.al_switches += step.al_switches;
    frame.linear_solver_iterations += step.linear_solver_iterations;
    frame.islands = step.islands;
    frame.substeps += step.substeps;
    frame.retries += step.retries;
    frame.time_step = std::min(frame.time_step, step.time_step);
    frame.t_coll += step.t_coll;
    frame.t_assembly += step.t_assembly;
    frame.t_linear += step.t_linear;
    frame.t_line_search += step.t_line_search;
    frame.t_solve += step.t_solve;
    frame.t_frame += step.t_frame;
    frame.joints = step.joints;  // the frame's last step, like contacts
    if (step.fluid) {
        if (!frame.fluid) {
            frame.fluid = step.fluid;
        } else {
            FluidStepStats& f = *frame.fluid;
            const FluidStepStats& d = *step.fluid;
            f.particles = d.particles;
            f.substeps += d.substeps;
            f.pressure_iterations += d.pressure_iterations;
            f.density_error = std::max(f.density_error, d.density_error);
            f.converged = f.converged && d.converged;
            f.particles_in_bodies = std::max(f.particles_in_bodies, d.particles_in_bodies);
            f.t_fluid += d.t_fluid;
            f.t_neighbors += d.t_neighbors;
            f.t_pressure += d.t_pressure;
            f.t_coupling += d.t_coupling;
            f.pushed_out += d.pushed_out;
        }
    }
    if (step.distributed) {
        if (!frame.distributed) {
            frame.distributed = step.distributed;
        } else {
            DistributedStepStats& f = *frame.distributed;
            const DistributedStepStats& d = *step.distributed;
            f.admm_iterations += d.admm_iterations;
            f.merge_blocked += d.merge_blocked;
            f.anderson_steps += d.anderson_steps;
            f.anderson_restarts += d.anderson_restarts;
            f.primal_residual = d.primal_residual;
            f.dual_residual = d.dual_residual;
            f.t_sync += d.t_sync;
            f.t_parallel += d.t_parallel;
            f.planes = d.planes;
            f.owners = d.owners;
            f.overlap_width = d.overlap_width;
            for (std::size_t w = 0; w < f.per_worker.size() && w < d.per_worker.size(); ++w) {
                WorkerStepStats& a = f.per_worker[w];
                const WorkerStepStats& b = d.per_worker[w];
                a.bodies = b.bodies;
                a.shared = b.shared;
                a.owned = b.owned;
                a.owned_mass = b.owned_mass;
                a.newton_iterations += b.newton_iterations;
                a.contacts = b.contacts;
                a.island_rounds += b.island_rounds;
                a.t_compute += b.t_compute;
                a.t_sync += b.t_sync;
                a.load += b.load;
            }
        }
    }
}

}  // namespace concord
